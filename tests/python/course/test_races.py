"""gillab.course.races: what the interval sweep says about the bare `hits += 1`."""

from gillab.course.races import bare_sentence, cheapest_correct, runs_sentence


def test_bare_sentence_says_what_the_bare_line_lost_over_the_sweep():
    sweep = [{"interval": "5ms", "bare": [0, 0], "call": [3, 0], "expected": 100},
             {"interval": "10us", "bare": [0, 0], "call": [9, 1], "expected": 100}]
    assert bare_sentence(sweep) == "`hits += 1` lost nothing in any of its 4 runs, at any interval."
    sweep[1]["bare"] = [0, 5]
    assert bare_sentence(sweep).startswith("`hits += 1` lost updates in 1 of its 4 runs (at 10us)")


class Raced:
    # The part of a %%race result the sentences read: lost updates per run (run(mode)["lost_runs"]) and cost per mode.
    expected = 1000

    def __init__(self, lost, cost):
        self._lost, self._cost = lost, cost

    def run(self, mode, python=None):
        return {"mode": mode, "lost_runs": self._lost[mode]}

    def cost(self, mode, python=None):
        return self._cost[mode]


def test_runs_sentence_says_what_the_runs_lost_whatever_they_lost():
    assert runs_sentence("`hits += 1`", Raced({"unlocked": [0, 0, 0]}, {})) == \
        "`hits += 1` lost nothing in any of its 3 runs here."
    assert runs_sentence("the setter", Raced({"unlocked": [0, 250, 40]}, {})) == \
        "the setter lost updates in 2 of its 3 runs here, up to 250 of 1,000 (25.0%)."


def test_cheapest_correct_skips_a_mode_that_lost_updates():
    raced = Raced({"lock": [0, 0], "batch": [0, 3], "per-thread": [0, 0]}, {"lock": 4.0, "batch": 0.5, "per-thread": 1.1})
    assert cheapest_correct(raced) == ("per-thread", 1.1)
    assert cheapest_correct(Raced({"lock": [1]}, {"lock": 2.0}), modes=("lock",)) == (None, None)
