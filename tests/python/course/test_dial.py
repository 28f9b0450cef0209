"""gillab.course.dial: the median lateness placed against each switch interval."""

import pytest

from gillab.course.dial import floor_sentence


class Sweep:
    # What floor_sentence reads from a %switchinterval result: the median lateness per interval.
    def __init__(self, medians):
        self.medians = medians

    def median(self, interval):
        return self.medians[interval]


def test_floor_sentence_says_every_median_sat_out_its_interval():
    text = floor_sentence(Sweep({"5ms": 6.1, "1ms": 1.4, "0.2ms": 0.5}))
    assert "5ms 6.10 ms (above), 1ms 1.40 ms (above), 0.2ms 0.50 ms (above)" in text
    assert text.endswith("each waiter sat out at least one whole interval.")


def test_floor_sentence_names_the_intervals_where_the_probe_found_the_gil_free():
    text = floor_sentence(Sweep({"5ms": 3.0, "100us": 0.3}), intervals=("5ms", "100us"))
    assert "5ms 3.00 ms (below), 100us 0.30 ms (above)" in text
    assert "Below the interval at 5ms:" in text


def test_floor_sentence_refuses_a_label_without_a_unit():
    with pytest.raises(ValueError, match="an interval label such as '5ms'"):
        floor_sentence(Sweep({"5": 1.0}), intervals=("5",))
