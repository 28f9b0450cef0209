"""A submission made gradable: protected cells restored from the instructor version.

Tests and locked cells come from the instructor's notebook (hidden tests
included), whatever the student did to them; solution cells keep the student's
text under the instructor's metadata (points can't be edited either). Edits,
deletions and forged grade ids are detected and explained.
"""

import copy
import uuid

from . import nbformat_grader as fmt
from . import release


def _clean_copy(cell):
    cell = copy.deepcopy(cell)
    release.clear_output(cell)
    return cell


def _checksum_matches(submitted, reference):
    probe = copy.deepcopy(reference)
    probe.source = submitted.source
    probe.cell_type = submitted.cell_type
    return fmt.compute_checksum(probe) == reference.metadata.nbgrader["checksum"]


def _unedited(cell, gid, released_cells, source_cells):
    """As released, or as the instructor wrote it (hidden tests included)."""
    return _checksum_matches(cell, released_cells[gid]) or _checksum_matches(cell, source_cells[gid])


def gradable_version(submission, instructor, notebook_name):
    """Returns (notebook to execute, notes). instructor is the instructor's notebook."""
    graded_source = release.student_version(instructor, notebook_name, keep_hidden_tests=True)
    released = release.student_version(instructor, notebook_name)
    source_cells = {fmt.grade_id(c): c for c in graded_source.cells if fmt.is_marked(c)}
    released_cells = {fmt.grade_id(c): c for c in released.cells if fmt.is_marked(c)}
    order = [fmt.grade_id(c) for c in graded_source.cells if fmt.is_marked(c)]

    result = copy.deepcopy(submission)
    chosen = _chosen_cells(result.cells, source_cells, released_cells)
    cells, seen, notes = [], set(), []
    for cell in result.cells:
        gid = fmt.grade_id(cell) if fmt.is_marked(cell) else None
        if gid is None:
            cells.append(cell)
            continue
        if gid not in source_cells or chosen[gid] is not cell:
            why = "a copy of" if gid in source_cells else "an unknown"
            notes.append(f"a cell claimed {why} grade id '{gid}'; it is graded as an ordinary cell")
            del cell.metadata["nbgrader"]
            cells.append(cell)
            continue
        seen.add(gid)
        original = source_cells[gid]
        if fmt.is_locked(original):
            if not _unedited(cell, gid, released_cells, source_cells):
                notes.append(f"cell '{gid}' was edited (checksum mismatch); the original was restored")
            cells.append(_clean_copy(original))
        else:
            if grader := cell.metadata.get("nbgrader"):
                if any(grader.get(k) != original.metadata.nbgrader.get(k) for k in ("grade", "solution", "points")):
                    notes.append(f"the metadata of cell '{gid}' was edited; the original was restored")
            if cell.cell_type != original.cell_type:
                notes.append(f"cell '{gid}' was changed to {cell.cell_type}; restored to {original.cell_type}")
                cell.cell_type = original.cell_type
                cell.pop("outputs", None)
                cell.pop("execution_count", None)
                if cell.cell_type == "code":
                    cell.outputs, cell.execution_count = [], None
            cell.metadata["nbgrader"] = copy.deepcopy(released_cells[gid].metadata.nbgrader)
            cells.append(cell)

    for position, gid in enumerate(order):
        if gid in seen:
            continue
        notes.append(f"cell '{gid}' was deleted; the instructor's version was restored")
        restored = _clean_copy(source_cells[gid] if fmt.is_locked(source_cells[gid]) else released_cells[gid])
        before = {g for g in order[:position]}
        at = 0
        for i, cell in enumerate(cells):
            if fmt.is_marked(cell) and fmt.grade_id(cell) in before:
                at = i + 1
        cells.insert(at, restored)
        seen.add(gid)
    result.cells = _with_unique_ids(cells)
    return result, notes


def _chosen_cells(cells, source_cells, released_cells):
    """For each grade id the submission uses more than once, the cell that
    really is the instructor's: same cell id, else an unedited copy, else the first."""
    candidates = {}
    for cell in cells:
        gid = fmt.grade_id(cell) if fmt.is_marked(cell) else None
        if gid in source_cells:
            candidates.setdefault(gid, []).append(cell)
    chosen = {}
    for gid, found in candidates.items():
        by_id = [c for c in found if c.get("id") and c.get("id") == source_cells[gid].get("id")]
        unedited = [c for c in found if _unedited(c, gid, released_cells, source_cells)]
        chosen[gid] = (by_id or unedited or found)[0]
    return chosen


def _with_unique_ids(cells):
    seen = set()
    for cell in cells:
        if "id" in cell:
            while cell.id in seen:
                cell.id = uuid.uuid4().hex[:8]
            seen.add(cell.id)
    return cells
