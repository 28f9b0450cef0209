"""nbgrader's scoring rules, applied to an executed notebook.

Test cell: 0 on any error output or any stderr stream; otherwise a numeric
execute_result in (0, points] is partial credit; anything else is full
points. Answer cells (grade + solution) are graded by hand, except an
unchanged stub, which scores 0. Task cells are graded by hand.
"""

from dataclasses import dataclass

from . import nbformat_grader as fmt


@dataclass
class CellScore:
    grade_id: str
    kind: str            # "test" (autograded), "answer" or "task" (manual)
    points: float
    score: object        # float, or None while manual grading is pending
    reason: str


def _first_line(text, limit=200):
    line = str(text).strip().splitlines()[0] if str(text).strip() else ""
    return line[:limit]


def _test_score(cell, max_points):
    for output in cell.get("outputs", []):
        if output.output_type == "error":
            return 0.0, f"{output.ename}: {_first_line(output.evalue)}".rstrip(": ")
        if output.output_type == "stream" and output.name == "stderr":
            return 0.0, f"wrote to stderr: {_first_line(output.text)}"
    for output in cell.get("outputs", []):
        if output.output_type == "execute_result":
            text = output.data.get("text/plain", "")
            try:
                value = float("".join(text) if isinstance(text, list) else text)
            except ValueError:
                return max_points, "passed"
            if value > max_points:
                return max_points, f"partial credit {value:g} exceeds the cell's {max_points:g} points; capped"
            if value > 0:
                return value, f"partial credit {value:g}"
            return max_points, "passed"
    return max_points, "passed"


def score_cell(cell):
    gid = fmt.grade_id(cell)
    if fmt.is_task(cell):
        return CellScore(gid, "task", fmt.points(cell), None, "graded by hand")
    max_points = fmt.points(cell)
    if fmt.is_solution(cell):
        checksum = cell.metadata.nbgrader.get("checksum")
        if checksum is not None and checksum == fmt.compute_checksum(cell):
            return CellScore(gid, "answer", max_points, 0.0, "no answer given")
        return CellScore(gid, "answer", max_points, None, "graded by hand")
    if cell.cell_type == "code":
        score, reason = _test_score(cell, max_points)
        return CellScore(gid, "test", max_points, score, reason)
    return CellScore(gid, "answer", max_points, None, "graded by hand")


def score_notebook(nb):
    return [score_cell(cell) for cell in nb.cells if fmt.is_grade(cell) or fmt.is_task(cell)]


def totals(cell_scores):
    """(autograded score, autograded max, manual points pending, manual max)."""
    auto = [c for c in cell_scores if c.kind == "test"]
    manual = [c for c in cell_scores if c.kind != "test"]
    return (sum(c.score for c in auto),
            sum(c.points for c in auto),
            sum(c.points for c in manual if c.score is None),
            sum(c.points for c in manual))
