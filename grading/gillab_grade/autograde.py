"""The batch: every student's notebook graded, and what the batch writes.

Which (student, notebook) pairs there are, handed to an executor that grades each one
(local.py on this machine, cluster.py on a Dask cluster, both over grade_one.py); as each ends,
its feedback page and autograded notebook are written here, and at the end the gradebook.
"""

import os

import nbformat

from . import feedback, gradebook, release
from . import nbformat_grader as fmt


def instructor_notebooks(source_dir):
    """{notebook path: instructor notebook} of source_dir, each validated (the first error raised)."""
    instructors = {}
    for rel in release.find_notebooks(source_dir):
        nb = release.read_notebook(os.path.join(source_dir, rel))
        errors = fmt.validate(nb, rel)
        if errors:
            raise errors[0]
        instructors[rel] = nb
    return instructors


def students_of(submissions_dir):
    return sorted(name for name in os.listdir(submissions_dir)
                  if not name.startswith(".") and os.path.isdir(os.path.join(submissions_dir, name))
                  and not os.path.islink(os.path.join(submissions_dir, name)))


def grade_batch(submissions_dir, source_dir, out_dir, options, executor, on_graded=None, show_hidden_tests=False):
    """Grades every student folder in submissions_dir against the notebooks of source_dir with
    executor (local.Local or cluster.Cluster) and options (grade_one.Options); writes autograded
    notebooks, feedback pages (with the hidden tests when show_hidden_tests) and the gradebook
    (grades.csv, grades.json) under out_dir; returns the NotebookGrades."""
    instructors = instructor_notebooks(source_dir)
    work = [(s, rel) for s in students_of(submissions_dir) for rel in instructors]
    os.makedirs(out_dir, exist_ok=True)

    def graded(grade, executed):
        page = feedback.page(grade, executed, instructors[grade.notebook], show_hidden_tests)
        _write_outputs(out_dir, grade, executed, page)
        if on_graded is not None:
            on_graded(grade)

    grades = executor.grade(work, submissions_dir, source_dir, instructors, options, graded)
    gradebook.write_csv(grades, os.path.join(out_dir, "grades.csv"))
    gradebook.write_json(grades, os.path.join(out_dir, "grades.json"))
    return grades


def _write_outputs(out_dir, grade, executed, page):
    stem = os.path.splitext(grade.notebook)[0]
    path = os.path.join(out_dir, "feedback", grade.student, stem + ".html")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        out.write(page)
    if executed is not None:
        graded = os.path.join(out_dir, "autograded", grade.student, grade.notebook)
        os.makedirs(os.path.dirname(graded), exist_ok=True)
        nbformat.write(executed, graded)
