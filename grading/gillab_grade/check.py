"""A folder of instructor notebooks checked end to end.

Metadata valid; the instructor version runs with no error output and earns
every autograded point; the student version earns nothing from tests that
depend on the solutions (a test that passes on the stubs gives free points).
"""

import os
import tempfile
from dataclasses import dataclass, field

import nbformat

from . import autograde, release
from . import nbformat_grader as fmt

INSTRUCTOR, STUDENT = "instructor", "student"


@dataclass
class NotebookCheck:
    notebook: str
    instructor_score: float = 0.0
    student_score: float = 0.0
    max_score: float = 0.0
    problems: list = field(default_factory=list)

    def line(self):
        verdict = "ok" if not self.problems else "FAILED"
        text = (f"{self.notebook}: instructor {self.instructor_score:g}/{self.max_score:g}, "
                f"student {self.student_score:g}/{self.max_score:g}: {verdict}")
        return "\n".join([text] + [f"  {p}" for p in self.problems])


def check(notebook_dir, options, executor, allow_free_points=False):
    """Returns (list of NotebookCheck, list of MetadataError); the notebooks run with executor
    (local.Local) and options (grade_one.Options)."""
    notebooks = release.find_notebooks(notebook_dir)
    errors = []
    for rel in notebooks:
        errors += fmt.validate(release.read_notebook(os.path.join(notebook_dir, rel)), rel)
    if errors:
        return [], errors
    with tempfile.TemporaryDirectory(prefix="gillab-grade-check-") as scratch:
        submissions, out = os.path.join(scratch, "submissions"), os.path.join(scratch, "out")
        for rel in notebooks:
            nb = release.read_notebook(os.path.join(notebook_dir, rel))
            for who, version in ((INSTRUCTOR, nb), (STUDENT, release.student_version(nb, rel))):
                path = os.path.join(submissions, who, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                nbformat.write(version, path)
        grades = autograde.grade_batch(submissions, notebook_dir, out, options, executor)
        by_key = {(g.student, g.notebook): g for g in grades}
        results = []
        for rel in notebooks:
            result = NotebookCheck(rel)
            teacher, student = by_key[(INSTRUCTOR, rel)], by_key[(STUDENT, rel)]
            result.instructor_score, result.max_score = teacher.totals[:2]
            result.student_score = student.totals[0]
            result.problems += [f"instructor version: {n}" for n in teacher.notes]
            result.problems += [f"instructor version: test '{c.grade_id}' scored {c.score:g}/{c.points:g}: {c.reason}"
                                for c in teacher.cells if c.kind == "test" and c.score < c.points]
            executed = nbformat.read(os.path.join(out, "autograded", INSTRUCTOR, rel), as_version=4)
            for index, cell in enumerate(executed.cells):
                for output in cell.get("outputs", []):
                    if output.output_type == "error" and not fmt.is_test(cell):
                        result.problems.append(f"instructor version: cell {index} raised {output.ename}: "
                                               f"{str(output.evalue)[:120]}")
            if not allow_free_points:
                result.problems += [f"student version: test '{c.grade_id}' gives {c.score:g} points without a solution"
                                    for c in student.cells if c.kind == "test" and c.score > 0]
            results.append(result)
        return results, []
