"""nbgrader's cell metadata (schema 3): flags, checksums, validation.

Kept byte-compatible with nbgrader so released notebooks stay valid for real
nbgrader: same keys, same checksum recipe (MD5 of source, cell type, the
grade/solution/locked flags, grade_id, and the points of grade cells).
"""

import hashlib
import re
from dataclasses import dataclass

SCHEMA_VERSION = 3
GRADE_ID_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")
FLAG_KEYS = ("grade", "solution", "locked", "task")
# checksum and cell_type are written into student versions by release.
KNOWN_KEYS = frozenset({"schema_version", "grade_id", "points", "checksum", "cell_type", *FLAG_KEYS})


def grader_metadata(cell):
    return cell.get("metadata", {}).get("nbgrader")


def _flag(cell, name):
    meta = grader_metadata(cell)
    return bool(meta.get(name, False)) if isinstance(meta, dict) else False


def is_grade(cell):
    return _flag(cell, "grade")


def is_solution(cell):
    return _flag(cell, "solution")


def is_task(cell):
    return _flag(cell, "task")


def is_locked(cell):
    """nbgrader's rule: solution cells are never locked, grade cells always are."""
    if grader_metadata(cell) is None or is_solution(cell):
        return False
    return is_grade(cell) or _flag(cell, "locked")


def is_test(cell):
    """An autograded test: a code grade cell that is not a solution."""
    return cell.get("cell_type") == "code" and is_grade(cell) and not is_solution(cell)


def grade_id(cell):
    meta = grader_metadata(cell)
    return meta.get("grade_id") if isinstance(meta, dict) else None


def points(cell):
    return float(grader_metadata(cell)["points"])


def is_marked(cell):
    """Has a grade_id that identifies it across versions (any flag set)."""
    return any(_flag(cell, name) for name in FLAG_KEYS)


def compute_checksum(cell):
    digest = hashlib.md5()
    digest.update(cell["source"].encode("utf-8"))
    digest.update(cell["cell_type"].encode("utf-8"))
    digest.update(str(is_grade(cell)).encode("utf-8"))
    digest.update(str(is_solution(cell)).encode("utf-8"))
    digest.update(str(is_locked(cell)).encode("utf-8"))
    digest.update(grader_metadata(cell)["grade_id"].encode("utf-8"))
    if is_grade(cell):
        digest.update(str(points(cell)).encode("utf-8"))
    return digest.hexdigest()


def add_checksum(cell):
    """What nbgrader's ComputeChecksums does to graded, solution and locked cells."""
    if is_grade(cell) or is_solution(cell) or is_locked(cell):
        meta = grader_metadata(cell)
        meta["checksum"] = compute_checksum(cell)
        meta["cell_type"] = cell["cell_type"]


@dataclass
class MetadataError(Exception):
    notebook: str
    cell_index: int
    grade_id: str
    problem: str

    def __str__(self):
        where = f"cell {self.cell_index}" + (f" ('{self.grade_id}')" if self.grade_id else "")
        return f"{self.notebook}: {where}: {self.problem}"


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _cell_problems(cell):
    meta = grader_metadata(cell)
    if not isinstance(meta, dict):
        yield "metadata.nbgrader must be an object"
        return
    unknown = sorted(set(meta) - KNOWN_KEYS)
    if unknown:
        yield f"unknown nbgrader keys {unknown}; accepted: {sorted(KNOWN_KEYS)}"
    if meta.get("schema_version") != SCHEMA_VERSION:
        yield f"schema_version is {meta.get('schema_version')!r}; only {SCHEMA_VERSION} is accepted"
    for name in FLAG_KEYS:
        if name in meta and not isinstance(meta[name], bool):
            yield f"'{name}' must be true or false, not {meta[name]!r}"
    for name in ("grade", "solution", "locked"):
        if name not in meta:
            yield f"'{name}' is missing (schema 3 requires grade, solution and locked)"
    if not is_marked(cell):
        return
    gid = meta.get("grade_id")
    if not isinstance(gid, str) or not GRADE_ID_PATTERN.match(gid):
        yield f"grade_id {gid!r} is missing or invalid; use letters, digits, '_' and '-'"
    if is_grade(cell) or is_task(cell):
        if "points" not in meta:
            yield "'points' is required on a grade or task cell"
        elif not _is_number(meta["points"]) or meta["points"] < 0:
            yield f"points must be a number >= 0, not {meta['points']!r}"
    if is_task(cell):
        if cell["cell_type"] != "markdown":
            yield "a task cell must be markdown"
    elif cell["cell_type"] == "markdown" and is_grade(cell) != is_solution(cell):
        yield "a markdown cell must be both grade and solution, or neither"
    if "cell_type" in meta and meta["cell_type"] != cell["cell_type"]:
        yield f"cell type changed from {meta['cell_type']} to {cell['cell_type']}"


def validate(nb, notebook_name):
    """Every problem with the notebook's nbgrader metadata, as MetadataErrors (empty when valid)."""
    errors = []
    seen = {}
    for index, cell in enumerate(nb.cells):
        if grader_metadata(cell) is None:
            continue
        gid = grade_id(cell) if isinstance(grade_id(cell), str) else ""
        for problem in _cell_problems(cell):
            errors.append(MetadataError(notebook_name, index, gid, problem))
        if is_marked(cell) and gid:
            if gid in seen:
                errors.append(MetadataError(notebook_name, index, gid,
                                            f"duplicate grade_id (first used by cell {seen[gid]})"))
            else:
                seen[gid] = index
    return errors
