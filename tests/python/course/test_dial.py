"""gillab.course.dial: the median lateness placed against each switch interval."""

import pytest

from gillab.course.dial import NO_SAMPLE, floor_sentence, median_text, sweep_lines, turn_split, yield_sentence


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


def test_floor_sentence_reads_a_label_without_a_unit_as_seconds_as_the_magics_do():
    text = floor_sentence(Sweep({"0.005": 6.1}), intervals=("0.005",))
    assert "0.005 6.10 ms (above)" in text


def test_floor_sentence_places_only_the_intervals_that_have_a_sample():
    text = floor_sentence(Sweep({"5ms": None, "1ms": 1.4, "0.2ms": 0.1}))
    assert f"5ms {NO_SAMPLE}, 1ms 1.40 ms (above), 0.2ms 0.10 ms (below)" in text
    assert "Below the interval at 0.2ms:" in text
    assert floor_sentence(Sweep({"5ms": None}), intervals=("5ms",)).endswith(f"5ms {NO_SAMPLE}. ")


class Runs(Sweep):
    # What sweep_lines reads: each interval's run as the result object gives it (median_ms None: no sample).
    def run(self, interval):
        median = self.medians[interval]
        return {"median_ms": median, "p95_ms": median and median * 2, "max_ms": median and median * 3,
                "handovers": 0 if median is None else 100, "rate_vs_default": None if median is None else 0.9}

    def median(self, interval):
        return self.run(interval)["median_ms"]


def test_sweep_lines_print_each_interval_and_say_which_had_no_sample():
    lines = sweep_lines(Runs({"5ms": 5.3, "1ms": None}), intervals=("5ms", "1ms")).splitlines()
    assert lines[0] == ("   5ms: median   5.30 ms, p95  10.60 ms, worst  15.90 ms,   100 turns of the probe, "
                        "cruncher at 0.90x its 5 ms rate")
    assert lines[1] == f"   1ms: {NO_SAMPLE}"
    assert median_text(Runs({"1ms": None}), "1ms") == NO_SAMPLE and median_text(Runs({"5ms": 5.3}), "5ms") == "5.30 ms"


def test_floor_sentence_refuses_a_label_that_is_not_a_duration():
    with pytest.raises(ValueError, match="bad duration '5 beats'; accepted: a number with us, ms or s"):
        floor_sentence(Sweep({"5 beats": 1.0}), intervals=("5 beats",))


class YieldSweep:
    # What turn_split reads from a %switchinterval --probe yield result: the probe's wait histogram per interval.
    def __init__(self, histograms):
        self.histograms = histograms

    def run(self, interval):
        buckets = [{"from_ms": 2 ** (b - 1) / 1000, "to_ms": 2 ** b / 1000, "count": n}
                   for b, n in self.histograms[interval].items()]
        return {"probe": {"wait_histogram": buckets}}


def test_turn_split_divides_the_waits_at_the_bucket_edge_nearest_half_the_interval():
    # 5 ms: half is 2.5 ms, nearest edge 2.048 ms. Buckets [16, 32) us and [1.024, 2.048) ms come straight
    # back; [2.048, 4.096) and [4.096, 8.192) ms queued.
    sweep = YieldSweep({"5ms": {5: 50, 11: 10, 12: 1, 13: 39}})
    back, queued, edge_ms, total = turn_split(sweep, "5ms")
    assert (back, queued, edge_ms, total) == (0.6, 0.4, 2.048, 100)
    # 0.5 ms: a wake-up of 64-128 us is a turn taken straight back, far under the 0.256 ms edge.
    assert turn_split(YieldSweep({"0.5ms": {7: 93, 10: 7}}), "0.5ms")[:3] == pytest.approx((0.93, 0.07, 0.256))


def test_yield_sentence_says_when_the_median_stands_between_two_groups():
    both = yield_sentence(YieldSweep({"5ms": {5: 55, 13: 45}}), intervals=("5ms",))
    assert "at 5ms, of 100 turns 55% came straight back and 45% queued (under or over 2.048 ms)" in both
    assert "read the two shares, not the median" in both
    one = yield_sentence(YieldSweep({"0.5ms": {10: 95, 4: 5}}), intervals=("0.5ms",))
    assert "each median reports that group" in one


def test_yield_sentence_without_a_histogram_says_so():
    assert "no histogram" in yield_sentence(YieldSweep({"5ms": {}}), intervals=("5ms",))
