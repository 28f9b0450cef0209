"""The lecture notebooks: each one executes top to bottom on the gillab kernel
(instructor version, solutions in place, quick mode) with no error and no
stderr, its nbgrader metadata is what nbgrader accepts, and gillab-grade gives
the solutions every point and the released student version none."""

import glob
import json
import os
import re
import shutil
import subprocess

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import REPO

GRADER = os.path.join(REPO, "build", "prefix", "bin", "gillab-grade")
NOTEBOOKS = sorted(glob.glob(os.path.join(REPO, "notebooks", "*.ipynb")))
NBGRADER_KEYS = {"schema_version", "grade", "solution", "locked", "grade_id", "points", "task"}
GRADE_ID = re.compile(r"^[a-zA-Z0-9_-]+$")
NUMBER = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")


def nbgrader(cell):
    return cell.metadata.get("nbgrader")


@pytest.fixture(params=NOTEBOOKS, ids=os.path.basename)
def notebook_path(request):
    return request.param


# Facts a lecture's measurements must show, printed by one cell appended after its last cell (in the
# same kernel, so it reads the lecture's own result objects).
FACTS_MARK = "LECTURE-FACTS "
FACTS_CELLS = {
    "01-what-the-gil-is.ipynb": """
import json as _json
print("LECTURE-FACTS " + _json.dumps({
    "sleep_x8": best_speedup(waiting, "threads", 8),
    "python_threads_cores": max(r["cores_used"] for r in python_work.rows if r["mode"] == "threads")}))
""",
    "02-computing-threads-or-processes.ipynb": """
import json as _json
print("LECTURE-FACTS " + _json.dumps({
    "python_threads_cores": max(r["cores_used"] for r in cpu_threads.rows if r["mode"] == "threads"),
    "handover_rates": handover_rates, "forced_per_s": forced_per_s, "interval_ms": exact_2.switch_interval_ms,
    "forced_asleep_ms": [w["interval_ms"] for w in exact_2.waits(forced=True) if w["taker"].startswith("spin")]}))
""",
    "03-waiting-threads-pools-asyncio.ipynb": """
import json as _json
print("LECTURE-FACTS " + _json.dumps({
    "default_pool": waits.wall("threads", POOL), "thread_per_wait": waits.wall("threads", N),
    "asyncio_unlimited": waits.wall("asyncio", N), "rounds_floor": math.ceil(N / POOL) * DELAY, "delay": DELAY,
    "convoy_alone": convoy[(False, 0.005)], "convoy_beside": beside_at_5ms,
    "convoy_interval_ms": convoy_trace.switch_interval_ms,
    "convoy_forced_asleep_ms": [w["interval_ms"] for w in convoy_trace.waits("answering", forced=True)]}))
""",
    "04-races-the-gil-is-not-thread-safety.ipynb": """
import json as _json
print("LECTURE-FACTS " + _json.dumps({
    "visible_unlocked": [int(n) for n in visible.run("unlocked")["lost_runs"]],
    "locked": [int(n) for r in (visible, safe) for n in r.run("lock")["lost_runs"]]}))
""",
    "05-the-blocked-event-loop.ipynb": """
import json as _json
print("LECTURE-FACTS " + _json.dumps({
    "wait_ms": WAIT * 1000,
    "max_gap_ms": {name: hb.max_gap_ms for name, hb in (("blocked", blocked), ("awaited", awaited), ("offloaded", offloaded))},
    "ticks": {name: hb.ticks for name, hb in (("blocked", blocked), ("awaited", awaited))}}))
""",
    "06-the-dial-and-beyond.ipynb": """
import json as _json
_facts = {"numpy": numpy is not None, "free": FREE is not None, "default": DEFAULT is not None,
          "shared_objects": {label: got for label, got in shared_found}}
if numpy_runs:
    _facts["numpy_x2"] = {name: best_speedup(run, "threads", 2) for name, run in numpy_runs.items()}
    _facts["numpy_threads_cores"] = {name: max(r["cores_used"] for r in run.rows if r["mode"] == "threads")
                                     for name, run in numpy_runs.items()}
    _facts["blas_cores"] = (blas_threads.get("defaults") or {}).get("cores")
    _facts["blas_path"] = BLAS_PATH
if FREE:
    _facts["race"] = {label: {mode: [int(n) for n in free_race.run(mode, python=python)["lost_runs"]]
                              for mode in ("unlocked", "lock")}
                      for label, python in (("default", DEFAULT), ("free", FREE)) if python}
    _facts.update(turns=turns, single_thread=single_thread, ownership=ownership,
                  scaling={row["label"]: row for row in free_threading})
print("LECTURE-FACTS " + _json.dumps(_facts))
""",
}


# make check runs the first lecture (a cell of every kind: set-up, prediction, each magic, published
# figure, exercise and its test, key results); kernel-test runs the others.
SMOKE_LECTURE = "01-"
EXECUTED = [pytest.param(path, marks=pytest.mark.check) if os.path.basename(path).startswith(SMOKE_LECTURE) else path
            for path in NOTEBOOKS]


@pytest.fixture(scope="module", params=EXECUTED, ids=os.path.basename)
def executed(request, tmp_path_factory):
    """The lecture run once in quick mode, with its facts cell (if any) appended; also the folder
    it ran in (where it keeps its key results)."""
    nb = nbformat.read(request.param, as_version=4)
    facts_cell = FACTS_CELLS.get(os.path.basename(request.param))
    if facts_cell:
        nb.cells.append(nbformat.v4.new_code_cell(facts_cell))
    previous = os.environ.get("GILLAB_QUICK")
    os.environ["GILLAB_QUICK"] = "1"
    try:
        folder = tmp_path_factory.mktemp("lecture")
        client = NotebookClient(nb, kernel_name="gillab", timeout=300, allow_errors=True,
                                resources={"metadata": {"path": str(folder)}})
        client.execute()
    finally:
        if previous is None:
            del os.environ["GILLAB_QUICK"]
        else:
            os.environ["GILLAB_QUICK"] = previous
    facts = None
    if facts_cell:
        printed = "".join(o.get("text", "") for o in nb.cells.pop().outputs if o.output_type == "stream")
        line = next((text for text in printed.splitlines() if text.startswith(FACTS_MARK)), None)
        facts = json.loads(line[len(FACTS_MARK):]) if line else {"missing": printed}
    return os.path.basename(request.param), nb, facts, folder


def test_there_are_lectures():
    assert NOTEBOOKS, "no notebooks in notebooks/"


def test_nbgrader_metadata_is_valid(notebook_path):
    nb = nbformat.read(notebook_path, as_version=4)
    nbformat.validate(nb)
    assert nb.metadata.kernelspec.name == "gillab"
    ids = []
    kinds = {"grade": 0, "solution": 0}
    for cell in nb.cells:
        meta = nbgrader(cell)
        if meta is None:
            continue
        assert set(meta) <= NBGRADER_KEYS, set(meta) - NBGRADER_KEYS
        assert meta["schema_version"] == 3
        for flag in ("grade", "solution", "locked"):
            assert isinstance(meta[flag], bool)
        assert GRADE_ID.match(meta["grade_id"]), meta["grade_id"]
        ids.append(meta["grade_id"])
        if meta["grade"]:
            kinds["grade"] += 1
            assert isinstance(meta.get("points"), (int, float)) and meta["points"] > 0, meta
            assert cell.cell_type == "code" and meta["locked"] and not meta["solution"], meta
        if meta["solution"]:
            kinds["solution"] += 1
            assert "### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source, meta["grade_id"]
        if "### BEGIN HIDDEN TESTS" in cell.source:
            assert meta["grade"] and "### END HIDDEN TESTS" in cell.source
    assert len(ids) == len(set(ids)), "grade_ids must be unique"
    assert 2 <= kinds["grade"] <= 4 and kinds["solution"] >= kinds["grade"], kinds


CELL_ID = re.compile(r"^[a-zA-Z0-9-_]{1,64}$")


def test_every_cell_keeps_an_id_of_its_own(notebook_path):
    # nbformat 4.5 ids, unique and written in the file: edits keep them, so a diff shows only what changed.
    with open(notebook_path) as f:
        raw = json.load(f)
    assert (raw["nbformat"], raw["nbformat_minor"]) >= (4, 5)
    ids = [cell.get("id") for cell in raw["cells"]]
    assert all(i and CELL_ID.match(i) for i in ids), [i for i in ids if not (i and CELL_ID.match(i))]
    assert len(ids) == len(set(ids)), "cell ids must be unique"


def test_no_lecture_is_twice_as_long_as_another():
    # Prose words and cells: a lecture that outgrows the others by that much is two lectures, or
    # plumbing that belongs in gillab.course.
    sizes = {}
    for path in NOTEBOOKS:
        cells = nbformat.read(path, as_version=4).cells
        sizes[os.path.basename(path)] = (sum(len(c.source.split()) for c in cells if c.cell_type == "markdown"), len(cells))
    for measure, name in ((0, "prose words"), (1, "cells")):
        longest = max(sizes, key=lambda n: sizes[n][measure])
        shortest = min(sizes, key=lambda n: sizes[n][measure])
        assert sizes[longest][measure] < 2 * sizes[shortest][measure], (name, sizes)


def test_notebook_runs_clean_in_quick_mode(executed):
    _, nb, _, _ = executed
    problems = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        where = f"cell {index} ({cell.source.splitlines()[0][:60]!r})"
        for output in cell.outputs:
            if output.output_type == "error":
                problems.append(f"{where}: {output.ename}: {output.evalue}")
            if output.output_type == "stream" and output.name == "stderr":
                problems.append(f"{where}: stderr: {output.text[:300]!r}")
        meta = nbgrader(cell)
        if meta and meta["grade"]:
            # nbgrader gives partial credit for a numeric result: a test cell must not end in one.
            for output in cell.outputs:
                if output.output_type == "execute_result":
                    assert not NUMBER.match(output.data.get("text/plain", "").strip()), where
    assert not problems, "\n".join(problems)


# The magics that measure: a prediction cell is followed by one of them.
MEASURING = ("%%gilbench", "%gilbench", "%%race", "%%heartbeat", "%heartbeat", "%switchinterval", "%%switchinterval",
             "%%gilwatch", "%gilwatch")


def test_each_prediction_asks_for_a_reason_and_the_lecture_ends_with_how_far_the_guesses_were(notebook_path):
    cells = nbformat.read(notebook_path, as_version=4).cells
    for cell in cells:
        if "prediction" in cell.metadata.get("tags", []):
            guesses = re.findall(r"^guess_(\w+) = None", cell.source, re.M)
            assert guesses and all(f"why_{g} = None" in cell.source for g in guesses), cell.source
            for later in cells:
                for g in guesses:
                    if "compare(" in later.source and f"guess_{g}," in later.source:
                        assert f"reason=why_{g}" in later.source, later.source
    assert cells[-1].source.strip().endswith("calibration()"), cells[-1].source


def test_each_prediction_is_followed_by_the_measurement_it_predicts(notebook_path):
    cells = nbformat.read(notebook_path, as_version=4).cells
    predictions = [i for i, c in enumerate(cells) if "prediction" in c.metadata.get("tags", [])]
    assert len(predictions) >= 3, f"{len(predictions)} prediction cells"
    for i in predictions:
        cell = cells[i]
        assert cell.cell_type == "code" and "None" in cell.source and not nbgrader(cell), cell.source
        following = next(c for c in cells[i + 1:] if c.cell_type == "code")
        assert following.source.lstrip().startswith(MEASURING), (cell.source, following.source[:80])


def test_lecture_keeps_its_key_results_beside_the_notebook(executed):
    name, _, _, folder = executed
    number = int(name[:2])
    record = json.loads((folder / f"lecture-{number:02d}-key-results.json").read_text())
    assert record["lecture"] == number and record["figures"], record
    assert all(v is None or isinstance(v, (int, float, str)) for v in record["figures"].values()), record


def test_solutions_earn_every_point_and_the_student_version_none(notebook_path, tmp_path):
    if not os.path.exists(GRADER):
        pytest.skip("gillab-grade is not installed in build/prefix")
    source = tmp_path / "source"
    source.mkdir()
    shutil.copy(notebook_path, source)
    grader = subprocess.Popen([GRADER, "check", str(source), "--jobs", "2"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=dict(os.environ, GILLAB_QUICK="1"))
    try:
        stdout, stderr = grader.communicate(timeout=900)
    except subprocess.TimeoutExpired:
        # SIGTERM, not SIGKILL: the grader then stops its kernels and removes its folders.
        grader.terminate()
        stdout, stderr = grader.communicate(timeout=60)
        pytest.fail("gillab-grade check ran past 900 s:\n" + stdout + stderr)
    assert grader.returncode == 0, stdout + stderr
    assert ": ok" in stdout, stdout


def test_lecture_measurements_show_what_it_teaches(executed):
    name, _, facts, _ = executed
    if name not in FACTS_CHECKS:
        pytest.skip(f"no measured relations checked for {name}")
    assert "missing" not in facts, facts
    FACTS_CHECKS[name](facts)


def lecture_1_facts(facts):
    # The sleep preset's 8 waits overlap in 8 threads (no core needed, so load cannot hide it); Python
    # threads never keep much more than one core busy (the GIL). zlib's speed-up needs two free cores
    # throughout, which a shared machine cannot promise: the lecture shows it and flags a busy machine.
    assert facts["sleep_x8"] > 4, facts
    assert facts["python_threads_cores"] < 1.3, facts


def lecture_2_facts(facts):
    # Pure-Python threads take turns: at most about one core, whatever the load. (Processes' gain
    # needs two free cores throughout, which a shared machine cannot promise; the lecture flags it.)
    assert facts["python_threads_cores"] < 1.3, facts
    # A waiter asks for the GIL only after a whole interval with no hand-over, so forced hand-overs
    # stay near one per interval: 4 times the spinning threads come nowhere near 4 times the rate.
    rates = facts["handover_rates"]
    assert all(rate > 0 for rate in rates.values()), rates
    assert rates["8"] < 2 * rates["2"], rates
    # The exact trace: a forced hand-over needs a whole interval's wait first, so two spinners see at
    # most one per interval, and each of their forced waits began with an interval asleep.
    assert 0 < facts["forced_per_s"] <= 1.1 * 1000 / facts["interval_ms"], facts
    assert facts["forced_asleep_ms"] and min(facts["forced_asleep_ms"]) >= 0.9 * facts["interval_ms"], facts


def lecture_3_facts(facts):
    # Waits overlap: the default pool needs rounds of waits (never faster than the rounds allow); one
    # thread per wait, or unlimited tasks, take about one wait. Waiting needs no core, so load
    # cannot hide it.
    assert facts["default_pool"] >= 0.95 * facts["rounds_floor"], facts
    assert facts["thread_per_wait"] < facts["default_pool"] / 2, facts
    assert facts["asyncio_unlimited"] < facts["default_pool"] / 2, facts
    # The convoy: beside a thread computing in Python, every round trip waits for the GIL twice,
    # so the answering thread manages fewer requests than alone, however loaded the machine.
    assert facts["convoy_beside"] < facts["convoy_alone"], facts
    # Each time the answering thread forced the GIL out of a holder, it had slept a whole interval first.
    asleep = facts["convoy_forced_asleep_ms"]
    assert asleep and min(asleep) >= 0.9 * facts["convoy_interval_ms"], facts


def lecture_4_facts(facts):
    # On 3.11 a race shows once a call sits between the read and the write at a small interval; a
    # lock loses nothing, ever.
    assert max(facts["visible_unlocked"]) > 0, facts
    assert facts["locked"] and all(n == 0 for n in facts["locked"]), facts


def lecture_5_facts(facts):
    # time.sleep in a handler stalls the loop for about its whole wait; awaiting it does not.
    gaps = facts["max_gap_ms"]
    assert gaps["blocked"] >= 0.8 * facts["wait_ms"], facts
    assert gaps["awaited"] < gaps["blocked"] / 3 and gaps["offloaded"] < gaps["blocked"] / 3, facts
    assert facts["ticks"]["awaited"] > 2 * facts["ticks"]["blocked"], facts


def lecture_6_facts(facts):
    # NumPy is in the course's packages: float loops release the GIL, so two threads do more work per
    # second than one, while dtype=object holds it. A matrix product gains from threads only when the
    # BLAS is single-threaded.
    assert facts["numpy"], "python3-numpy is one of the Makefile's APT_PACKAGES"
    assert facts["blas_cores"] is not None, "one matrix product in a child process must answer"
    # dtype=object holds the GIL: its threads never keep much more than one core busy, however loaded
    # the machine is (the cap is structural).
    assert facts["numpy_threads_cores"]["objects"] < 1.3, facts
    # The speed-ups need two free cores for the whole measurement, which a machine shared with other
    # builds and tests cannot promise (a zlib run seconds earlier proved no guide), so the lecture shows
    # them beside the ceiling and flags a busy machine, and only what load cannot blur is asserted: the
    # reference BLAS (Debian's default) keeps one matrix product on the caller's single core.
    if facts["blas_path"] and "/blas/" in facts["blas_path"]:
        assert facts["blas_cores"] < 1.3, facts
    # Every build keeps single operations on a built-in list whole: no append is ever lost.
    assert facts["shared_objects"]["this kernel"], facts["shared_objects"]
    assert all(got["appended"] == got["expected"] for got in facts["shared_objects"].values() if got), facts
    if not facts["free"]:
        pytest.skip("no free-threaded build on this machine (make free-threaded-python)")
    # No GIL: the race loses updates, a lock still prevents it in both builds.
    assert any(n > 0 for n in facts["race"]["free"]["unlocked"]), facts["race"]
    assert all(n == 0 for build in facts["race"].values() for n in build["lock"]), facts["race"]
    # No GIL, no turn: at a 5 ms interval the yielding probe waits less than the default build's
    # probe, or in any case far less than the interval (a loaded machine's queue can lengthen both).
    free_wait = facts["turns"]["free-threaded"]["5ms"]["median_ms"]
    default_wait = facts["turns"].get("default build", {}).get("5ms", {}).get("median_ms", 0)
    assert free_wait < max(2.5, default_wait), facts["turns"]
    # One thread pays for free threading on at least one tight loop (calls lose specialization in 3.13).
    if facts["default"]:
        assert any(t["free-threaded"] > t["default"] for t in facts["single_thread"].values()), facts["single_thread"]
        assert set(facts["ownership"]) == {"default build", "free-threaded"}, facts["ownership"]
    assert {"free-threaded", "free-threaded, PYTHON_GIL=1"} <= set(facts["scaling"]), facts["scaling"]
    if facts["default"]:  # with the GIL, two threads of Python never keep much more than one core busy
        assert facts["scaling"]["default build"]["two_cores"] < 1.3, facts["scaling"]
    assert facts["scaling"]["free-threaded"]["gil"] is False and facts["scaling"]["free-threaded, PYTHON_GIL=1"]["gil"] is True


FACTS_CHECKS = {"01-what-the-gil-is.ipynb": lecture_1_facts, "02-computing-threads-or-processes.ipynb": lecture_2_facts,
                "03-waiting-threads-pools-asyncio.ipynb": lecture_3_facts,
                "04-races-the-gil-is-not-thread-safety.ipynb": lecture_4_facts,
                "05-the-blocked-event-loop.ipynb": lecture_5_facts, "06-the-dial-and-beyond.ipynb": lecture_6_facts}


HIDE_NUMPY = """
import sys


class NoNumPy:
    # An import hook that finds no NumPy, as on a machine without it.
    def find_spec(self, name, path=None, target=None):
        if name == "numpy" or name.startswith("numpy."):
            raise ModuleNotFoundError(f"No module named {name!r}")


for loaded in [name for name in sys.modules if name == "numpy" or name.startswith("numpy.")]:
    del sys.modules[loaded]
sys.meta_path.insert(0, NoNumPy())
"""


def test_lecture_6_says_what_is_missing_instead_of_measuring_it(tmp_path, monkeypatch):
    # Lecture 6's NumPy and free-threading sections on a machine with neither: NumPy made
    # unimportable, the project's builds looked for in an empty cache (pyenv has no free-threaded
    # CPython). They must run clean and say so, with the published figures labelled as published.
    path = os.path.join(REPO, "notebooks", "06-the-dial-and-beyond.ipynb")
    nb = nbformat.read(path, as_version=4)
    starts = [i for i, c in enumerate(nb.cells) if c.source.startswith(("## NumPy", "## Exercises"))]
    hide_numpy = nbformat.v4.new_code_cell(HIDE_NUMPY)
    imports = next(c for c in nb.cells if c.cell_type == "code")  # the lecture's first code cell
    nb.cells = [imports, hide_numpy] + nb.cells[starts[0]:starts[1]]
    monkeypatch.setenv("GILLAB_QUICK", "1")
    monkeypatch.setenv("GILLAB_CACHE", str(tmp_path / "no-builds"))
    NotebookClient(nb, kernel_name="gillab", timeout=300, allow_errors=True,
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    text = []
    for cell in nb.cells:
        for output in getattr(cell, "outputs", []):
            assert output.output_type != "error", f"{cell.source[:60]!r}: {output.ename}: {output.evalue}"
            assert not (output.output_type == "stream" and output.name == "stderr"), output.text
            text.append(output.get("text", "") + "".join(str(v) for v in output.get("data", {}).values()))
    shown = "\n".join(text)
    assert "NumPy is not installed" in shown
    assert "No free-threaded CPython on this machine" in shown
    assert "published (3.13.7t, 2 cores)" in shown and "x1.76" in shown
    assert "not measured here" in shown  # the ownership table's measured columns
