"""The magics in real front ends: gillab's JupyterLab 4 and the classic Notebook 6.4, each in
headless Chromium, checked on screen and in the notebook file the front end saved."""

import glob
import os
import shutil
import struct

import nbformat
import pytest

import browsers
from browsers import REPO, read_notebook, require, write_smoke_notebook
from html_table import TableCells
from loopback import JupyterServer
from result_bundle import RESULT_MIME
from threaded_cell import THREADED_CELL  # the student stops in `work`, on `return total`

LECTURES = sorted(glob.glob(os.path.join(REPO, "notebooks", "*.ipynb")))
# What a student sees, as the README shows it. GILLAB_UPDATE_IMAGES=1 writes these screenshots
# over the committed docs/images/; otherwise they go to build/clients/images/, so a test run
# leaves the checkout clean (docs/development.md).
README_IMAGES = (os.path.join(REPO, "docs", "images") if os.environ.get("GILLAB_UPDATE_IMAGES") == "1"
                 else os.path.join(browsers.SCREENSHOTS, "images"))


@pytest.fixture
def start_server():
    """start_server("lab" | "classic", env={...}) -> JupyterServer; nothing is left after the test."""
    started = []

    def start(kind, env=None):
        try:
            server = JupyterServer(kind, env)
        except RuntimeError as error:
            pytest.fail(str(error))
        started.append(server)
        return server

    yield start
    leftovers = [pid for server in started for pid in server.stop()]
    assert not leftovers, f"processes left behind after the servers stopped: {leftovers}"


def png_size(path):
    with open(path, "rb") as f:
        header = f.read(24)
    assert header[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", header[16:24])


def markdown_headings(source):
    """The text of each `#` heading line, as Lab's table of contents shows it (inline code
    rendered, so without its backticks)."""
    return [line.lstrip("#").strip().replace("`", "") for line in source.splitlines()
            if line.startswith("#") and line.lstrip("#").startswith(" ")]


def outputs_of(cell, output_type):
    return [o for o in cell.outputs if o.output_type == output_type]


def assert_front_end_clean(report):
    """No uncaught page error, no plugin that failed to start."""
    assert not report["pageErrors"], report["pageErrors"]
    assert not [e for e in report["consoleErrors"] if "failed to activate" in e], report["consoleErrors"]


def assert_ran_clean(report, cells):
    """Every cell ran, with no error and no stderr output."""
    assert report["finished"] == "all", "Run All stopped early:\n" + "\n".join(
        c["text"][:300] for c in report["cells"] if c["errors"])
    for cell in cells:
        assert not outputs_of(cell, "error"), f"error output in saved cell {cell.source[:60]!r}"
        assert not [o for o in outputs_of(cell, "stream") if o.name == "stderr"], cell.source[:60]
        assert cell.execution_count, f"saved cell never ran: {cell.source[:60]!r}"


def assert_magic_rendered(on_screen, saved, kind):
    """A magic's table rendered as HTML; a %%gilbench also its chart: drawn live by Vega in Lab,
    a decoded PNG in the classic Notebook."""
    assert on_screen["tables"] >= 1, f"no table on screen for {saved.source[:60]!r}"
    data = {}
    for output in outputs_of(saved, "execute_result") + outputs_of(saved, "display_data"):
        data.update(output.data)
    assert "<table" in data.get("text/html", ""), f"no HTML table saved for {saved.source[:60]!r}"
    assert RESULT_MIME in data
    if saved.source.startswith("%%gilbench"):
        if kind == "lab":
            assert on_screen["vegaCharts"] >= 1, f"no Vega chart drawn for {saved.source[:60]!r}"
            assert on_screen["pngs"] == 0, "Lab shows the PNG copy beside the live chart"
        else:
            assert on_screen["pngsDecoded"] >= 1, f"no chart image rendered for {saved.source[:60]!r}"
        assert data.get("image/png"), "no PNG chart saved"
        assert data.get("application/vnd.vegalite.v5+json"), "no Vega-Lite chart saved"


@pytest.mark.parametrize("kind", ["lab", "classic"])
def test_magics_render_table_chart_and_progress_and_are_saved(kind, start_server):
    require(kind)
    server = start_server(kind)
    write_smoke_notebook(os.path.join(server.root, "magics.ipynb"))

    report = browsers.drive(server, "magics.ipynb", timeout=180)

    saved = read_notebook(server, "magics.ipynb")
    code = [c for c in saved.cells if c.cell_type == "code"]
    gilinfo, gilbench = report["cells"]
    assert saved.metadata.kernelspec.name == "gillab", "the front end did not switch to gillab"
    assert_front_end_clean(report)
    assert_ran_clean(report, code)

    # On screen: %gilinfo's table; %%gilbench's table (mode and workers columns) and chart.
    assert_magic_rendered(gilinfo, code[0], kind)
    assert_magic_rendered(gilbench, code[1], kind)
    assert {"mode", "workers"} <= set(gilbench["tableHeaders"]), gilbench["tableHeaders"]

    # The progress line appeared, changed in place while measuring, and ended on its summary.
    progress = report["progress"]
    assert any("configuration 1 of 3" in line for line in progress), progress
    assert any("configuration 3 of 3" in line for line in progress), progress
    assert progress[-1] == "gilbench: done: 3 configurations measured", progress
    assert "gilbench: done: 3 configurations measured" in gilbench["text"]
    # Saved: the progress display holds its final text, once, before the result.
    displays = outputs_of(code[1], "display_data")
    assert [d.data["text/plain"] for d in displays] == ["gilbench: done: 3 configurations measured"]

    page, chart = report["screenshots"]
    assert png_size(page) == (1400, 1000) or png_size(page)[1] > 1000, png_size(page)
    assert min(png_size(chart)) > 100, f"the chart's screenshot {chart} is {png_size(chart)}"


@pytest.mark.skipif(not LECTURES, reason="no lecture notebooks under notebooks/ yet")
def test_first_lecture_runs_in_lab_with_every_magic_rendered_and_its_contents_listed(start_server):
    require("lab")
    lecture = os.path.basename(LECTURES[0])
    # Lectures read GILLAB_QUICK to measure each configuration once (the test suite's mode).
    server = start_server("lab", env={"GILLAB_QUICK": "1"})
    shutil.copy(LECTURES[0], os.path.join(server.root, lecture))

    os.makedirs(README_IMAGES, exist_ok=True)
    report = browsers.drive(server, lecture, timeout=420, toc=True,
                            pageShot=os.path.join(README_IMAGES, "lecture-in-lab.png"))

    saved = read_notebook(server, lecture)
    code = [c for c in saved.cells if c.cell_type == "code"]
    assert saved.metadata.kernelspec.name == "gillab"
    assert_front_end_clean(report)
    magic_cells = [(shown, cell) for shown, cell in zip(report["cells"], code)
                   if cell.source.startswith(("%gilinfo", "%%gilbench"))]
    assert magic_cells, f"{lecture} calls no magic"
    # The table of contents lists the lecture's sections, in order.
    sections = [heading for cell in saved.cells if cell.cell_type == "markdown"
                for heading in markdown_headings(cell.source)]
    assert len(sections) >= 3, sections
    assert report["toc"] == sections, (report["toc"], sections)
    for shown, cell in magic_cells:
        assert cell.execution_count, f"magic cell never ran: {cell.source[:60]!r}"
        assert not outputs_of(cell, "error"), f"magic cell failed: {cell.source[:60]!r}"
        assert_magic_rendered(shown, cell, "lab")
    # The lecture's own checks (exercise asserts) measure this machine and belong to the lecture
    # tests; here any other failure, or a stop before the last magic cell, is the front end's.
    failures = [(c.source[:60], o.ename) for c in code for o in outputs_of(c, "error")]
    assert all(ename == "AssertionError" for _, ename in failures), failures


# One cell per chart a magic draws, small enough for the suite; the screenshots of their outputs
# are the README's pictures of what a student sees, so each cell shows its lesson: the %%gilbench
# jobs are long enough that two processes beat a pool's start-up while threads stay at one core,
# and run after the heartbeat cell, not while Lab's page is still loading (docs/benchmarks.md, README pictures).
CHART_CELLS = {
    "heartbeat": "%%heartbeat --no-blame\n"
                 "import asyncio, time\n"
                 "time.sleep(0.2)\n"
                 "await asyncio.sleep(0.2)\n",
    "gilbench": "%%gilbench --modes sequential,threads,processes --workers 1,2 --jobs 4 --repeats 3\n"
                "def job(i):\n"
                "    return sum(k * k for k in range(6_000_000))\n",
    "race": "%%race --threads 4 --iterations 400000 --runs 1\n"
            "counter = 0\n"
            "def one_more(value):\n"
            "    return value + 1\n"
            "counter = one_more(counter)\n",
    "switchinterval": "%switchinterval --sweep 5ms,1ms,0.2ms --duration 0.5",
    "switchinterval-timeline": "%switchinterval --timeline --sweep 5ms,1ms --duration 0.3",
}


def test_every_magics_chart_is_drawn_live_in_lab_with_figures_in_its_tooltips(start_server):
    require("lab")
    server = start_server("lab", env={"GILLAB_QUICK": "1"})
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src) for src in CHART_CELLS.values()])
    nb.metadata.kernelspec = {"name": "gillab", "display_name": browsers.kernel_display_name(),
                              "language": "python"}
    nbformat.write(nb, os.path.join(server.root, "charts.ipynb"))
    os.makedirs(README_IMAGES, exist_ok=True)
    shots = {i: os.path.join(README_IMAGES, f"{name}.png") for i, name in enumerate(CHART_CELLS)}
    gilbench_cell = list(CHART_CELLS).index("gilbench")

    report = browsers.drive(server, "charts.ipynb", timeout=300, outputShots=shots, hoverChart=gilbench_cell,
                            hoverKey="mode")

    saved = read_notebook(server, "charts.ipynb")
    assert_front_end_clean(report)
    assert_ran_clean(report, saved.cells)
    for name, shown in zip(CHART_CELLS, report["cells"]):
        assert shown["tables"] >= 1, f"{name}: no table on screen"
        assert shown["vegaCharts"] == 1, f"{name}: {shown['vegaCharts']} Vega charts drawn"
        assert shown["pngs"] == 0, f"{name}: Lab shows the PNG copy beside the live chart"
    for path in shots.values():
        width, height = png_size(path)
        assert width > 300 and height > 200, f"{path} is {width}x{height}"
    # A %%gilbench bar's tooltip gives that run's figures, as its table row shows them.
    shown = report["tooltip"]
    assert shown, "no tooltip over the %%gilbench chart"
    for header in ("mode", "workers", "wall median (s)", "spread (IQR) (s)", "speed-up (x)", "CPU (s)", "cores used"):
        assert header in shown, (header, shown)
    assert shown["mode"] in ("threads", "processes"), shown
    gilbench = [o.data for o in outputs_of(saved.cells[gilbench_cell], "execute_result")][-1]
    rows = TableCells(gilbench["text/html"]).records()
    assert any(all(row.get(h) == text for h, text in shown.items()) for row in rows), (shown, rows)


def test_lab_offers_the_tools_a_student_reaches_for(start_server):
    require("lab")
    server = start_server("lab")
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("# Tools"),
        nbformat.v4.new_code_cell("import statistics"),
        nbformat.v4.new_code_cell("statistics.median"),
    ])
    nb.metadata.kernelspec = {"name": "gillab", "display_name": browsers.kernel_display_name(),
                              "language": "python"}
    nbformat.write(nb, os.path.join(server.root, "tools.ipynb"))
    with open(os.path.join(server.root, "spin.py"), "w") as f:
        f.write("def spin(n):\n    return sum(range(n))\n")

    report = browsers.drive(server, "tools.ipynb", timeout=180, script=browsers.EXPLORER,
                            script_file="spin.py", inspected="median")

    assert_front_end_clean(report)
    kernel = browsers.kernel_display_name()
    # The side panels: files, running kernels, contents, property inspector, debugger.
    for panel in ("File Browser", "Running Terminals and Kernels", "Table of Contents",
                  "Property Inspector", "Debugger"):
        assert any(title.startswith(panel) for title in report["sidebar"]), (panel, report["sidebar"])
    # Shift+Tab and the contextual help show the kernel's docstring of statistics.median.
    assert "middle value" in report["tooltip"], report["tooltip"]
    assert "middle value" in report["inspector"], report["inspector"]
    launcher = {s["section"]: s["cards"] for s in report["launcher"]}
    assert any(kernel in card for card in launcher.get("Notebook", [])), launcher
    assert any(kernel in card for card in launcher.get("Console", [])), launcher
    others = " ".join(launcher.get("Other", []))
    for card in ("Terminal", "Text File", "Python File", "Markdown File", "Contextual Help"):
        assert card in others, (card, launcher)
    assert report["console"].strip() == "42", report["console"]
    assert "def spin(n):" in report["editor"], report["editor"]
    assert report["terminal"]
    assert any("Keyboard Shortcuts" in entry for entry in report["settings"]), report["settings"]
    assert report["theme"] == "JupyterLab Dark"


DEBUGGER_SETTINGS = "lab/api/settings/@jupyterlab/debugger-extension:main"


def saved_lab_files(server):
    return [os.path.join(folder, name) for folder, _, names in os.walk(server.base)
            if "gillab-lab" in folder for name in names]


def test_a_lab_starts_with_no_workspace_or_setting_another_lab_saved(start_server):
    """What a Lab saves (its layout, a user's setting) stays in its own test's folders."""
    require("lab")
    first = start_server("lab")
    first.api("lab/api/workspaces/course", method="PUT",
              body={"data": {"layout-restorer:data": {"right": {"collapsed": True}}}, "metadata": {"id": "course"}})
    first.api(DEBUGGER_SETTINGS, method="PUT", body={"raw": '{"autoCollapseDebuggerSidebar": true}'})
    assert "course" in first.api("lab/api/workspaces")["workspaces"]["ids"]
    assert saved_lab_files(first), "the first Lab saved nothing under its own folder"

    second = start_server("lab")
    assert "course" not in second.api("lab/api/workspaces")["workspaces"]["ids"]
    assert "autoCollapseDebuggerSidebar" not in second.api(DEBUGGER_SETTINGS)["raw"]


def test_a_breakpoint_in_a_threads_function_stops_there_in_labs_debugger(start_server):
    require("lab")
    server = start_server("lab")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(THREADED_CELL)])
    nb.metadata.kernelspec = {"name": "gillab", "display_name": browsers.kernel_display_name(),
                              "language": "python"}
    nbformat.write(nb, os.path.join(server.root, "debug.ipynb"))
    os.makedirs(README_IMAGES, exist_ok=True)

    report = browsers.drive(server, "debug.ipynb", timeout=180, script=browsers.DEBUGGER, breakLine=7,
                            shot=os.path.join(README_IMAGES, "debugger.png"))

    assert_front_end_clean(report)
    # As in stock JupyterLab, the first switch-on opens the debugger's panel by itself.
    assert report["panelOpenedItself"], "the debugger was switched on but its panel stayed closed"
    assert len(report["breakpoints"]) == 1, report["breakpoints"]
    names = [frame["name"] for frame in report["callstack"]]
    # Stopped in the worker thread: `work` on top, called from the thread's lambda (the main
    # thread's stack would end in the cell's <module>; threading's own frames are not the student's).
    assert names[:2] == ["work", "<lambda>"], report["callstack"]
    assert "<module>" not in names, names
    assert "total" in report["variables"] and "n" in report["variables"], report["variables"]
    assert "worker returned 6" in "\n".join(report["output"]), report["output"]
