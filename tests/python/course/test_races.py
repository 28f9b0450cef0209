"""gillab.course.races: what the interval sweep says about the bare `counter += 1`."""

from gillab.course.races import bare_sentence


def test_bare_sentence_says_what_the_bare_line_lost_over_the_sweep():
    sweep = [{"interval": "5ms", "bare": [0, 0], "call": [3, 0], "expected": 100},
             {"interval": "10us", "bare": [0, 0], "call": [9, 1], "expected": 100}]
    assert bare_sentence(sweep) == "`counter += 1` lost nothing in any of its 4 runs, at any interval."
    sweep[1]["bare"] = [0, 5]
    assert bare_sentence(sweep).startswith("`counter += 1` lost updates in 1 of its 4 runs (at 10us)")
