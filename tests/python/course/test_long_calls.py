"""gillab.course.long_calls: the published long-call design in a fresh interpreter, and its table."""

from gillab.course.long_calls import published_design, published_design_table


def test_published_design_times_the_yielding_probe_beside_python_and_beside_one_multiply():
    found = published_design("/usr/bin/python3", 60_000, python_s=0.3, multiply_s=0.6)
    assert found["bits"] == [(7 ** 60_000).bit_length(), (11 ** 60_000).bit_length()] and found["interval_ms"] == 5
    for phase in ("python", "multiply"):
        f = found[phase]
        assert f["waits"] > 0 and 0 <= f["median_ms"] <= f["p95_ms"] <= f["worst_ms"], (phase, f)
    # A multiply is one C call: some wait lasts most of one, however the probe fares otherwise.
    assert found["multiply"]["worst_ms"] >= 0.5 * found["multiply_ms"], found


def test_published_design_table_sets_each_interpreter_beside_the_published_row():
    figures = {"multiply_ms": 300.0, "bits": [1, 2], "interval_ms": 5.0,
               "python": {"median_ms": 5.0, "p95_ms": 6.0, "worst_ms": 9.0, "waits": 100},
               "multiply": {"median_ms": 150.0, "p95_ms": 290.0, "worst_ms": 310.0, "waits": 12}}
    shown = published_design_table({"/usr/bin/python3": figures, "/missing": None}, 500_000).data
    assert "7\\*\\*500,000 x 11\\*\\*500,000, 300 ms each (12 waits)" in shown  # Markdown-escaped
    assert "| x30 | x62 |" in shown  # 150 / 5 and 310 / 5
    assert "379.826" in shown and "| x35 | x76 |" in shown and "/missing" not in shown
