"""Every magic's chart as a PNG drawn by matplotlib (gillab/magics/charts.py through
render/chart_png.cpp), over the protocol: a real image at twice its display
size, anti-aliased, in each chart kind the magics use; and the tables'
numbers as a reader expects them (separators, significant digits, plurals)."""

import re

from html_table import TableCells
from pngs import BLUE, ORANGE, pixels_near, png_of
from result_bundle import RESULT_MIME

CPU_JOB = "def job(i):\n    total = 0\n    for k in range(20_000):\n        total += k\n    return total + i\n"


def execute_result(result):
    assert result.status == "ok", result.reply["content"]
    content = result.of_type("execute_result")[-1]["content"]
    return content["data"], content["metadata"]


def test_gilbench_bars_are_a_hidpi_matplotlib_png_in_the_series_colours(kernel):
    result = kernel.execute(f"%%gilbench --modes sequential,threads,processes --workers 1,2 --jobs 2 --repeats 1 "
                            f"--warmup 0\n{CPU_JOB}", timeout=120)
    data, metadata = execute_result(result)
    image = png_of(data, metadata)
    assert metadata["image/png"] == {"width": 640, "height": 360}
    # threads and processes: one bar colour each, as in the Vega-Lite spec's scheme
    assert len(pixels_near(image, BLUE)) > 2000 and len(pixels_near(image, ORANGE)) > 2000
    assert data["application/vnd.vegalite.v5+json"]["data"]["values"]


def test_race_bars_render(kernel):
    result = kernel.execute("%%race --threads 2 --iterations 2000 --runs 1 -o r\nn = 0\nn += 1\n", timeout=120)
    png_of(*execute_result(result))


def test_switchinterval_sweep_bars_render(kernel):
    result = kernel.execute("%switchinterval --sweep 5ms,1ms --duration 200ms", timeout=60)
    png_of(*execute_result(result))


def test_heartbeat_lines_render(kernel):
    result = kernel.execute("%%heartbeat\nimport time\ntime.sleep(0.2)\n", timeout=60)
    png_of(*execute_result(result))


def test_heartbeat_span_lines_render(kernel):
    kernel.ok("%heartbeat start")
    kernel.ok("import time; time.sleep(0.2)")
    png_of(*execute_result(kernel.execute("%heartbeat stop")))


def test_timeline_segments_grow_a_strip_per_interval_and_colour_each_thread(kernel):
    one = png_of(*execute_result(kernel.execute("%switchinterval --timeline --duration 100ms", timeout=60)))
    data, metadata = execute_result(kernel.execute("%switchinterval --timeline --sweep 5ms,1ms --duration 100ms",
                                                   timeout=60))
    two = png_of(data, metadata)
    assert two.height > one.height
    # thread A and thread B each held the GIL for a good part of the time: both lane colours show
    assert len(pixels_near(two, BLUE)) > 500 and len(pixels_near(two, ORANGE)) > 500
    # lane A above lane B within each strip: the first blue row lies above the first orange row
    assert min(y for _, y in pixels_near(two, BLUE)) < min(y for _, y in pixels_near(two, ORANGE))


def test_gilwatch_segments_render(kernel):
    code = ("%%gilwatch\nimport threading\ndef spin():\n    n = 0\n    for _ in range(300_000):\n        n += 1\n"
            "workers = [threading.Thread(target=spin) for _ in range(2)]\n"
            "for w in workers: w.start()\nfor w in workers: w.join()\n")
    data, metadata = execute_result(kernel.execute(code, timeout=60))
    image = png_of(data, metadata)
    assert len(pixels_near(image, BLUE)) > 200


def test_charts_keep_their_look_whatever_the_notebook_styles_and_leave_pyplot_alone(kernel):
    kernel.ok("import matplotlib\n_saved = matplotlib.rcParams.copy()\n"
              "matplotlib.rcParams.update({'figure.facecolor': 'black', 'axes.facecolor': 'black', 'font.size': 30})")
    try:
        result = kernel.execute("%switchinterval --sweep 5ms --duration 100ms", timeout=60)
        image = png_of(*execute_result(result))
        assert image.getpixel((2, 2)) == (255, 255, 255)
        assert image.getpixel((image.width // 2, image.height // 2)) != (0, 0, 0)
        # the notebook's own settings are back, and no pyplot state machine was started
        assert kernel.eval("matplotlib.rcParams['axes.facecolor']") == "black"
        assert kernel.eval("'matplotlib.pyplot' in __import__('sys').modules") is False
    finally:
        kernel.ok("matplotlib.rcParams.update(_saved)")


def test_matplotlib_is_imported_by_the_first_chart_not_by_the_kernel(fresh_kernel):
    assert fresh_kernel.eval("'matplotlib' in __import__('sys').modules") is False
    fresh_kernel.ok("%gilinfo")  # a table without a chart
    assert fresh_kernel.eval("'matplotlib' in __import__('sys').modules") is False
    png_of(*execute_result(fresh_kernel.execute("%switchinterval --sweep 5ms --duration 100ms", timeout=60)))
    assert fresh_kernel.eval("'matplotlib' in __import__('sys').modules") is True


def test_a_bundle_without_the_png_draws_none(fresh_kernel):
    fresh_kernel.ok("r = %switchinterval --sweep 5ms --duration 100ms")
    data = fresh_kernel.eval("sorted(r._repr_mimebundle_(exclude=['image/png'])[0])")
    assert "image/png" not in data and "application/vnd.vegalite.v5+json" in data
    assert fresh_kernel.eval("'matplotlib' in __import__('sys').modules") is False


# ---- numbers in the tables

def significant_digits(text):
    digits = text.replace(",", "").lstrip("-")
    whole, _, decimals = digits.partition(".")
    return len((whole + decimals).lstrip("0")) if decimals else None


def test_gilbench_table_keeps_one_significance_per_column_and_counts_in_words(kernel):
    result = kernel.execute(f"%%gilbench --modes sequential,threads --workers 1,2 --jobs 1 --repeats 1 --warmup 0\n"
                            f"{CPU_JOB}", timeout=120)
    data, _ = execute_result(result)
    assert re.fullmatch(r"gilbench: 1 job, median of 1 run, (1 CPU|\d+ CPUs)", data["text/plain"].splitlines()[0])
    table = TableCells(data["text/html"])
    seconds = [c for c, header in enumerate(table.headers) if header.endswith("(s)")]
    assert seconds, table.headers
    for c in seconds:
        shown = [row[c] for row in table.rows if row and row[c]]
        # a column of zeros (one run has no spread) has no digits to compare
        assert len({significant_digits(text) for text in shown} - {None}) <= 1, (table.headers[c], shown)
    wall = table.headers.index("wall median (s)")
    assert {significant_digits(row[wall]) for row in table.rows if row} == {3}


def test_race_table_groups_thousands_and_counts_runs_right(kernel):
    result = kernel.execute("%%race --threads 2 --iterations 50000 --runs 1 --modes unlocked -o r\nn = 0\nn += 1\n",
                            timeout=120)
    data, _ = execute_result(result)
    text = data["text/plain"]
    assert text.startswith("race: 2 threads x 50,000 repetitions, 1 run per mode")
    assert "100,000" in text  # expected count of the 2 x 50,000 run
    assert ">100,000<" in data["text/html"]
    assert data[RESULT_MIME]["rows"][-1]["expected"] == 100000  # the JSON keeps plain numbers


def test_switchinterval_rates_get_thousands_separators(kernel):
    data, _ = execute_result(kernel.execute("%switchinterval --sweep 5ms --duration 200ms", timeout=60))
    table = TableCells(data["text/html"])
    rate_columns = [c for c, h in enumerate(table.headers) if "/s)" in h]
    assert rate_columns, table.headers
    for row in table.rows[1:]:
        for c in rate_columns:
            if row[c]:
                assert re.fullmatch(r"\d{1,3}(,\d{3})*(\.\d+)?", row[c]), row[c]
    assert any(re.search(r"\d,\d{3}", row[c]) for row in table.rows[1:] for c in rate_columns)


# ---- what a chart's tooltips show

def tooltip_of(point, spec):
    """A Vega-Lite data point's tooltip as {title: text}, read through the bar layer's encoding."""
    bars = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "bar")
    return {field.get("title", field["field"]): point[field["field"]] for field in bars["encoding"]["tooltip"]}


def test_each_gilbench_bars_tooltip_shows_its_table_row_as_the_table_prints_it(kernel):
    result = kernel.execute(f"%%gilbench --modes sequential,threads,processes --workers 1,2 --jobs 2 --repeats 1 "
                            f"--warmup 0\n{CPU_JOB}", timeout=120)
    data, _ = execute_result(result)
    table = TableCells(data["text/html"])
    spec = data["application/vnd.vegalite.v5+json"]
    points = spec["data"]["values"]
    assert len(points) == 4  # threads and processes at 1 and 2 workers; sequential is a rule
    shown_rows = table.records()
    for point in points:
        tip = tooltip_of(point, spec)
        for header in ("mode", "workers", "wall median (s)", "spread (IQR) (s)", "speed-up (x)", "CPU (s)",
                       "cores used"):
            assert header in tip, (header, tip)
        assert tip in [{h: row[h] for h in tip} for row in shown_rows], (tip, shown_rows)
        assert point["series"] == tip["mode"] and point["category"] == tip["workers"]


def test_a_sweeps_points_show_their_intervals_row_and_heartbeats_their_own_values(kernel):
    data, _ = execute_result(kernel.execute("%switchinterval --sweep 5ms,1ms --duration 200ms", timeout=60))
    spec = data["application/vnd.vegalite.v5+json"]
    table = TableCells(data["text/html"])
    tip = tooltip_of(spec["data"]["values"][0], spec)
    assert list(tip) == [h for h in table.headers if any(row and row[table.headers.index(h)] for row in table.rows)]
    data, _ = execute_result(kernel.execute("%%heartbeat\nimport time\ntime.sleep(0.2)\n", timeout=60))
    lines = data["application/vnd.vegalite.v5+json"]["layer"][0]
    assert [f["field"] for f in lines["encoding"]["tooltip"]][:1] == ["series"]


def test_a_weak_scaling_chart_says_the_work_grows_with_the_workers_and_a_strong_one_lower_is_faster(kernel):
    line = "%%gilbench --modes threads --workers 1,2 --jobs 2 --repeats 1 --warmup 0"
    weak, _ = execute_result(kernel.execute(f"{line} --scaling weak\n{CPU_JOB}", timeout=120))
    strong, _ = execute_result(kernel.execute(f"{line}\n{CPU_JOB}", timeout=120))
    weak_title = weak["application/vnd.vegalite.v5+json"]["title"]
    strong_title = strong["application/vnd.vegalite.v5+json"]["title"]
    assert "same work per worker" in str(weak_title) and "lower is faster" not in str(weak_title), weak_title
    assert "lower is faster" in str(strong_title), strong_title


def test_heartbeat_gaps_are_drawn_as_steps_over_the_time_they_lasted(kernel):
    data, _ = execute_result(kernel.execute("%%heartbeat\nimport time\ntime.sleep(0.2)\n", timeout=60))
    lines = [layer for layer in data["application/vnd.vegalite.v5+json"]["layer"] if layer["mark"]["type"] == "line"]
    assert lines and all(layer["mark"]["interpolate"] == "step-before" for layer in lines), lines
