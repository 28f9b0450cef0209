"""The lecture notebooks: each one executes top to bottom on the gillab kernel
(instructor version, solutions in place, quick mode) with no error and no
stderr, its nbgrader metadata is what nbgrader accepts, and gillab-grade gives
the solutions every point and the released student version none."""

import glob
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


def test_notebook_runs_clean_in_quick_mode(notebook_path, tmp_path, monkeypatch):
    monkeypatch.setenv("GILLAB_QUICK", "1")
    nb = nbformat.read(notebook_path, as_version=4)
    client = NotebookClient(nb, kernel_name="gillab", timeout=300, allow_errors=True,
                            resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
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
