"""Grades and feedback back to the students: collect from their homes, autograde, and
`gillab-grade release-feedback` into each home; the page names cells by exercise and grade_id,
renders Markdown safely, says whether hidden tests are shown, and the gradebook lists a student
who handed in nothing with a zero and the reason."""

import copy
import csv
import os
import shutil
import sys
import tempfile

import nbformat
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import submissions  # noqa: E402
from test_grading import SOURCE, run_command  # noqa: E402

STUDENT_UID = 1000
# Right except for the empty list: only the hidden test fails.
HIDDEN_FAILURE = "def squares(n):\n    return [i * i for i in range(n)] or [0]"
MARKDOWN_ANSWER = "Threads take **turns**.\n\n<script>alert('x')</script>\n\n| a | b |\n|---|---|\n| 1 | 2 |"


def answered(released, **answers):
    nb = copy.deepcopy(released)
    for grade_id, source in answers.items():
        next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id).source = source
    return nb


def make_home(homes, student, nb=None):
    course = os.path.join(homes, student, "course")
    os.makedirs(course)
    if nb is not None:
        nbformat.write(nb, os.path.join(course, "ps1.ipynb"))
    if os.geteuid() == 0:
        for root, dirs, files in os.walk(os.path.join(homes, student)):
            for name in [root] + [os.path.join(root, f) for f in files]:
                os.chown(name, STUDENT_UID, 100)


@pytest.fixture(scope="module")
def course():
    """ann answers all, bob fails a hidden test and writes Markdown with a script, cat hands in
    nothing, eve's feedback folder is a symlink to a folder outside her home."""
    folder = tempfile.mkdtemp(prefix="gillab-feedback-test-")
    released = os.path.join(folder, "release")
    assert run_command("release", SOURCE, released, tmpdir=folder).returncode == 0
    student_nb = nbformat.read(os.path.join(released, "ps1.ipynb"), as_version=4)
    homes = os.path.join(folder, "home")
    right = {"squares": submissions.CORRECT_SQUARES, "workers": submissions.CORRECT_WORKERS}
    make_home(homes, "ann", answered(student_nb, **right, explain=submissions.CORRECT_EXPLAIN))
    make_home(homes, "bob", answered(student_nb, **dict(right, squares=HIDDEN_FAILURE), explain=MARKDOWN_ANSWER))
    make_home(homes, "cat")
    make_home(homes, "eve")
    elsewhere = os.path.join(folder, "elsewhere")
    os.mkdir(elsewhere)
    os.symlink(elsewhere, os.path.join(homes, "eve", "feedback"))
    subs = os.path.join(folder, "submitted")
    collected = run_command("collect", homes, subs, "--source", SOURCE, "--path-in-home", "course", tmpdir=folder)
    assert collected.returncode == 0, collected.stderr
    graded = os.path.join(folder, "graded")
    result = run_command("autograde", subs, "--source", SOURCE, "--out", graded, "--jobs", "2", tmpdir=folder,
                         timeout=300)
    assert result.returncode == 0, result.stderr
    yield {"folder": folder, "homes": homes, "subs": subs, "graded": graded, "table": result.stdout,
           "elsewhere": elsewhere}
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def returned(course):
    result = run_command("release-feedback", course["graded"], course["homes"], tmpdir=course["folder"])
    return result


def home_page(course, student):
    with open(os.path.join(course["homes"], student, "feedback", "ps1.html"), encoding="utf-8") as page:
        return page.read()


def test_a_student_who_handed_in_nothing_is_listed_with_a_zero_and_the_reason(course):
    with open(os.path.join(course["graded"], "grades.csv")) as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert set(rows) == {"ann", "bob", "cat", "eve"}
    assert float(rows["cat"]["score"]) == 0 and rows["cat"]["status"] == "missing"
    assert "no submission: nothing at cat/ps1.ipynb" in rows["cat"]["notes"]
    line = next(line for line in course["table"].splitlines() if line.startswith("cat "))
    assert line.split()[2] == "0" and "missing" in line and "no submission" in line
    assert float(rows["ann"]["score"]) == 6 and float(rows["bob"]["score"]) == 4


def test_each_student_finds_her_feedback_in_her_home_and_owns_it(course, returned):
    for student in ("ann", "bob", "cat"):
        path = os.path.join(course["homes"], student, "feedback", "ps1.html")
        assert os.path.isfile(path), returned.stderr
        if os.geteuid() == 0:
            assert os.stat(path).st_uid == STUDENT_UID
    assert "Autograded score: <b>0 / 6</b>" in home_page(course, "cat")
    assert "returned 3 feedback page(s) to 3 student(s)" in returned.stdout


def test_a_symlinked_feedback_folder_is_refused_and_nothing_written_through_it(course, returned):
    assert returned.returncode == 1
    assert "refused eve: feedback: a symlink where a folder or page goes" in returned.stderr
    assert os.listdir(course["elsewhere"]) == []


def test_the_page_names_each_graded_cell_by_its_exercise_and_grade_id(course, returned):
    page = home_page(course, "bob")
    assert "<td>Problem set 1</td><td><code>test_squares</code></td>" in page
    assert "<b>Problem set 1 (<code>test_squares</code>)</b>: 0 / 2" in page
    assert "cell 4" not in page


def test_the_page_renders_markdown_and_escapes_the_html_in_it(course, returned):
    page = home_page(course, "bob")
    assert "<h1>Problem set 1</h1>" in page and "<strong>turns</strong>" in page
    assert "<td>1</td>" in page
    assert "<script>alert" not in page and "&lt;script&gt;alert" in page


def test_hidden_tests_are_left_out_of_the_page_and_it_says_so(course, returned):
    page = home_page(course, "bob")
    assert "Hidden tests: not shown" in page and "hidden tests ran here" in page
    assert "squares(0)" not in page
    assert "assert squares(4) == [0, 1, 4, 9]" in page


def test_the_instructor_can_show_the_hidden_tests(course):
    subs = os.path.join(course["folder"], "only-bob")
    shutil.copytree(os.path.join(course["subs"], "bob"), os.path.join(subs, "bob"))
    out = os.path.join(course["folder"], "graded-shown")
    result = run_command("autograde", subs, "--source", SOURCE, "--out", out, "--show-hidden-tests",
                         tmpdir=course["folder"], timeout=300)
    assert result.returncode == 0, result.stderr
    with open(os.path.join(out, "feedback", "bob", "ps1.html"), encoding="utf-8") as f:
        page = f.read()
    assert "Hidden tests: shown" in page and "assert squares(0) == []" in page
