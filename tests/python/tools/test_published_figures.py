"""tools/published-figures: docs/lectures.md's table of published figures lists the cells that read
each one, and --check fails, naming the tool, when a lecture edit moves a cell and the doc does
not follow."""

import json
import os
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TOOL = os.path.join(REPO, "tools", "published-figures")
COURSE = os.path.join("python", "gillab", "course")


def run_tool(root, *arguments):
    return subprocess.run([sys.executable, TOOL, "--root", str(root), *arguments], capture_output=True, text=True,
                          timeout=120)


def copy_of_the_tree(root):
    """The files the tool reads: the doc, the course package and the notebooks."""
    shutil.copytree(os.path.join(REPO, COURSE), root / COURSE, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(os.path.join(REPO, "notebooks"), root / "notebooks")
    (root / "docs").mkdir()
    shutil.copy(os.path.join(REPO, "docs", "lectures.md"), root / "docs")
    return root


def row(output, key):
    return next(line for line in output.splitlines() if line.startswith(f"| `{key}` |"))


def test_the_lectures_doc_lists_the_cells_as_they_are():
    check = run_tool(REPO, "--check")
    assert check.returncode == 0, check.stderr
    assert check.stderr == ""


def test_a_cell_moved_in_a_lecture_fails_the_check_until_the_doc_is_written(tmp_path):
    root = copy_of_the_tree(tmp_path)
    lecture = root / "notebooks" / "02-computing-threads-or-processes.ipynb"
    nb = json.loads(lecture.read_text(encoding="utf-8"))
    nb["cells"].insert(0, {"cell_type": "markdown", "id": "inserted", "metadata": {}, "source": ["# moved"]})
    lecture.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    check = run_tool(root, "--check")
    assert check.returncode == 1
    assert "run tools/published-figures --write" in check.stderr and "`cpu_pools`" in check.stderr
    assert run_tool(root, "--write").returncode == 0
    assert run_tool(root, "--check").returncode == 0


def test_a_figure_read_through_a_helper_or_a_magic_note_is_listed_with_how(tmp_path):
    root = copy_of_the_tree(tmp_path)
    lecture = root / "notebooks" / "07-extra.ipynb"
    cells = [["from gillab.course import free_threading as ft\n", "found = %gilinfo --interpreters\n",
              "ft.turns_table(turns)"],
             ["%gilbench --preset zlib -o z"],
             ["compare('x', None, 1.0, figure='race', reason=None)"]]
    lecture.write_text(json.dumps({"cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "outputs": [],
                                              "source": source} for i, source in enumerate(cells)]}), encoding="utf-8")
    printed = run_tool(root).stdout
    assert "L7 c0 (`c0`, through `gillab.course.free_threading`)" in row(printed, "yield_probe")
    assert "L7 c1 (`c1`, `%gilbench`'s note)" in row(printed, "zlib")
    assert "L7 c2 (`c2`)" in row(printed, "race")
