"""gillab.magics.charts on its own: each chart kind's model drawn as a PNG of twice
its display size, and a kind it does not know refused by name."""

import io

import pytest
from matplotlib.figure import Figure
from PIL import Image

from gillab.magics import charts

BARS = {"kind": "grouped_bars", "title": "t", "x_title": "workers", "y_title": "s", "categories": ["1", "2"],
        "series": [{"name": "threads", "x": [0, 1], "y": [0.5, 0.25], "labels": ["0.5", "0.25"]}],
        "rules": [{"label": "sequential", "y": 0.4}], "lanes": [], "bands": [], "segments": []}
LINES = {"kind": "lines", "title": "", "x_title": "ms", "y_title": "ms", "categories": [],
         "series": [{"name": "gap", "x": [0.0, 10.0, 20.0], "y": [10.0, 12.5, 11.0]}],
         "rules": [], "lanes": [], "bands": [], "segments": []}
SEGMENTS = {"kind": "segments", "title": "who", "x_title": "time (ms)", "y_title": "", "categories": [], "series": [],
            "rules": [], "lanes": ["A", "B"], "bands": ["5 ms", "1 ms", "0.2 ms"],
            "segments": [{"band": 0, "lane": 0, "start": 0.0, "end": 5.0}, {"band": 2, "lane": 1, "start": 5.0, "end": 5.0}]}


@pytest.mark.parametrize("model", [BARS, LINES, SEGMENTS, dict(BARS, series=[], rules=[])],
                         ids=["bars", "lines", "segments", "nothing to plot"])
def test_each_kind_is_a_png_of_twice_its_display_size(model):
    png, width, height = charts.render_png(model)
    image = Image.open(io.BytesIO(png))
    assert image.size == (charts.PIXEL_RATIO * width, charts.PIXEL_RATIO * height)
    assert image.info["Software"].startswith("Matplotlib")


def test_segment_charts_grow_with_their_bands():
    assert charts.render_png(SEGMENTS)[2] > charts.render_png(dict(SEGMENTS, bands=["5 ms"]))[2]


def test_an_unknown_kind_is_refused_by_name():
    with pytest.raises(ValueError, match="no PNG renderer for chart kind 'pie'; known: grouped_bars, lines, segments"):
        charts.render_png(dict(BARS, kind="pie"))


def test_a_step_chart_holds_each_gap_since_the_previous_tick_instead_of_ramping_to_it():
    # ticks 11 ms apart, then one 508 ms late: the long gap spans the time before its tick
    ticks = dict(LINES, steps=True, series=[{"name": "gap", "x": [11.0, 22.0, 33.0, 541.0], "y": [11.0, 11.0, 11.0, 508.0]}])
    (line,) = charts._draw_lines(Figure(), ticks).get_lines()
    assert line.get_drawstyle() == "steps-pre"
    (plain,) = charts._draw_lines(Figure(), LINES).get_lines()
    assert plain.get_drawstyle() == "default"
