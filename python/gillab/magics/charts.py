"""PNG charts of the magics' results, drawn by matplotlib's Agg canvas.

The native side hands over the chart model (`render/chart_model.cpp`: the
result's Chart as plain data, unplottable points already left out); Vega-Lite
and text are drawn from the same model in C++. Only this module imports
matplotlib, and only when the first chart is drawn, so a kernel that shows
no chart never pays for it. No pyplot: a Figure on its own Agg canvas leaves
the user's pyplot state and backend alone.
"""

import io
import math
import warnings

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import Formatter

__all__ = ["render_png", "PIXEL_RATIO"]

PIXEL_RATIO = 2        # image pixels per display pixel: sharp on HiDPI screens
DISPLAY_DPI = 100      # display pixels per inch of figure: font sizes in points follow
WIDTH = 640            # display size of bar and line charts
HEIGHT = 360
# Vega-Lite's default scheme (tableau10), so the PNG and the Vega-Lite chart
# of one result colour its series alike.
PALETTE = ("#4c78a8", "#f58518", "#e45756", "#72b7b2", "#54a24b",
           "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac")
RULE_COLOUR = "#444444"    # chart_vegalite.cpp's rule colour
MUTED = "#666666"

# The one look of every chart, on top of matplotlib's defaults (LOOK), not of
# the notebook's rcParams: a notebook's own style must not restyle the magics.
STYLE = {
    "font.family": "DejaVu Sans",
    "font.size": 9.5,
    "text.color": "#222222",
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
    "axes.labelsize": 9.5,
    "axes.labelcolor": "#333333",
    "axes.edgecolor": "#999999",
    "axes.linewidth": 0.8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "axes.axisbelow": True,
    "grid.color": "#e4e4e4",
    "grid.linewidth": 0.8,
    "xtick.color": "#555555",
    "ytick.color": "#555555",
    "xtick.labelsize": 8.5,
    "ytick.labelsize": 8.5,
    "legend.frameon": False,
    "legend.fontsize": 8.5,
    "figure.facecolor": "white",
    "savefig.facecolor": "white",
}

# Settings that are the session's, not a look (matplotlib.style's blacklist):
# the charts leave them as the notebook has them.
_SESSION_SETTINGS = ("backend", "interactive", "toolbar", "timezone", "webagg.", "tk.", "date.epoch",
                     "figure.max_open_warning", "figure.raise_window", "savefig.directory", "docstring.")
LOOK = {key: value for key, value in matplotlib.rcParamsDefault.items() if not key.startswith(_SESSION_SETTINGS)}
LOOK.update(STYLE)

MAX_LABELLED_BARS = 32    # more bars than this and their figures would overlap

SEGMENT_LANE_PX = 22       # display height of one lane in a segments chart
SEGMENT_BAND_PX = 30       # a band's own title and gap
SEGMENT_FRAME_PX = 90      # the chart's title and time axis
MAX_HEIGHT = 1600


class _ThousandsFormatter(Formatter):
    """Tick labels as the tables print numbers: 318,513 and 0.25, with the
    decimals the tick step needs and no more."""

    def __init__(self):
        self.decimals = 0

    def set_locs(self, locs):
        super().set_locs(locs)
        steps = sorted(abs(b - a) for a, b in zip(locs, locs[1:]) if b != a)
        self.decimals = _decimals_of(steps[0]) if steps else 0

    def __call__(self, x, pos=None):
        text = f"{x:,.{self.decimals}f}"
        return "0" if text.lstrip("-").strip("0.,") == "" else text


def _decimals_of(step):
    for decimals in range(7):
        if math.isclose(round(step, decimals), step, rel_tol=1e-6, abs_tol=0):
            return decimals
    return 6


def _colour(index):
    return PALETTE[index % len(PALETTE)]


def _number_axis(axis):
    axis.set_major_formatter(_ThousandsFormatter())


def _draw_rules(ax, rules):
    for rule in rules:
        ax.axhline(rule["y"], color=RULE_COLOUR, linestyle=(0, (6, 4)), linewidth=1.1, zorder=3)
        ax.annotate(rule["label"], xy=(1, rule["y"]), xycoords=("axes fraction", "data"),
                    xytext=(-3, 2), textcoords="offset points", ha="right", va="bottom",
                    fontsize=8, color=RULE_COLOUR, zorder=4,
                    bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8, "pad": 1})


def _legend(ax, handles):
    named = [h for h in handles if h.get_label()]
    if named:
        ax.legend(handles=named, loc="lower left", bbox_to_anchor=(0, 1.0),
                  ncols=min(len(named), 4), handlelength=1.4, columnspacing=1.2,
                  borderaxespad=0.3)


def _nothing_to_plot(ax):
    ax.text(0.5, 0.5, "nothing to plot", transform=ax.transAxes, ha="center", va="center", color=MUTED)


def _axis_titles(ax, model):
    ax.set_xlabel(model.get("x_title", ""))
    ax.set_ylabel(model.get("y_title", ""))


def _draw_grouped_bars(fig, model):
    ax = fig.add_subplot()
    categories = model.get("categories", [])
    series = model.get("series", [])
    group = 0.8
    width = group / max(len(series), 1)
    handles = []
    for index, one in enumerate(series):
        offset = (index - (len(series) - 1) / 2) * width
        xs = [x + offset for x in one["x"]]
        bars = ax.bar(xs, one["y"], width * 0.92, color=_colour(index), label=one["name"], zorder=2)
        handles.append(bars)
        if sum(len(s["y"]) for s in series) <= MAX_LABELLED_BARS:
            ax.bar_label(bars, labels=one.get("labels"), padding=2, fontsize=7.5, color="#333333")
    ax.set_xticks(range(len(categories)), categories)
    ax.tick_params(axis="x", length=0)
    ax.margins(y=0.12)  # room for the bars' figures
    if categories:
        ax.set_xlim(-0.5, len(categories) - 0.5)
    _number_axis(ax.yaxis)
    _draw_rules(ax, model.get("rules", []))
    _axis_titles(ax, model)
    if not any(one["y"] for one in series) and not model.get("rules"):
        _nothing_to_plot(ax)
    _legend(ax, handles)
    return ax


def _draw_lines(fig, model):
    ax = fig.add_subplot()
    handles = []
    for index, one in enumerate(model.get("series", [])):
        few = len(one["x"]) <= 60
        # steps: a point's value held since the previous point (chart_model.cpp), drawn flat there
        (line,) = ax.plot(one["x"], one["y"], color=_colour(index), linewidth=1.5,
                          drawstyle="steps-pre" if model.get("steps") else "default",
                          marker="o" if few else None, markersize=3.5, label=one["name"], zorder=2)
        handles.append(line)
    _number_axis(ax.xaxis)
    _number_axis(ax.yaxis)
    _draw_rules(ax, model.get("rules", []))
    _axis_titles(ax, model)
    if not any(one["x"] for one in model.get("series", [])) and not model.get("rules"):
        _nothing_to_plot(ax)
    _legend(ax, handles)
    return ax


def _segments_height(model):
    bands = max(len(model.get("bands", [])), 1)
    lanes = max(len(model.get("lanes", [])), 1)
    height = SEGMENT_FRAME_PX + bands * (SEGMENT_BAND_PX + lanes * SEGMENT_LANE_PX)
    return min(max(height, 160), MAX_HEIGHT)


def _draw_segments(fig, model):
    lanes = model.get("lanes", [])
    bands = model.get("bands", []) or [""]
    axes = fig.subplots(len(bands), 1, sharex=True, squeeze=False)[:, 0]
    spans = {}
    for segment in model.get("segments", []):
        spans.setdefault((segment["band"], segment["lane"]), []).append(
            (segment["start"], segment["end"] - segment["start"]))
    for band, ax in enumerate(axes):
        for lane in range(len(lanes)):
            # an edge of the bar's own colour keeps turns shorter than a pixel visible
            ax.broken_barh(spans.get((band, lane), []), (lane - 0.36, 0.72), facecolors=_colour(lane),
                           edgecolors=_colour(lane), linewidth=0.4, zorder=2)
        ax.set_yticks(range(len(lanes)), lanes)
        ax.set_ylim(len(lanes) - 0.5, -0.5)  # the first lane on top, as in the table
        ax.tick_params(axis="y", length=0)
        ax.grid(axis="x", visible=True)
        ax.grid(axis="y", visible=False)
        ax.spines["left"].set_visible(False)
        if bands[band]:
            ax.set_title(bands[band], fontsize=9, fontweight="normal", color="#333333", loc="left")
        ax.set_ylabel(model.get("y_title", ""))
    _number_axis(axes[-1].xaxis)
    axes[-1].set_xlabel(model.get("x_title", ""))
    if not spans:
        _nothing_to_plot(axes[0])
    return axes[0]


_DRAW = {"grouped_bars": _draw_grouped_bars, "lines": _draw_lines, "segments": _draw_segments}


def display_size(model):
    """(width, height) in display pixels: what the notebook shows."""
    if model.get("kind") == "segments":
        return WIDTH, _segments_height(model)
    return WIDTH, HEIGHT


def render_png(model):
    """The chart model drawn as a PNG of PIXEL_RATIO times its display size.

    Returns (png_bytes, display_width, display_height)."""
    draw = _DRAW.get(model.get("kind"))
    if draw is None:
        raise ValueError(f"gillab.magics.charts: no PNG renderer for chart kind {model.get('kind')!r}; "
                         f"known: {', '.join(_DRAW)}")
    width, height = display_size(model)
    # matplotlib warns on stderr when a layout cannot fit (constrained layout on a
    # crowded chart): a chart's looks are no reason to zero a graded cell.
    with matplotlib.rc_context(LOOK), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        figure = Figure(figsize=(width / DISPLAY_DPI, height / DISPLAY_DPI),
                        dpi=DISPLAY_DPI * PIXEL_RATIO, layout="constrained")
        canvas = FigureCanvasAgg(figure)
        draw(figure, model)
        if model.get("title"):
            figure.suptitle(model["title"], x=0.01, ha="left", fontsize=11, fontweight="bold")
        out = io.BytesIO()
        figure.savefig(out, format="png")
    # The canvas keeps its renderer, whose pixel buffer (megabytes at 2x) would wait for the
    # garbage collector behind the figure's reference cycles: freed now, it goes back at once.
    canvas.renderer = None
    return out.getvalue(), width, height
