"""The student version of an instructor notebook, by nbgrader's rules.

Solution regions become stubs, hidden tests disappear, outputs are cleared,
protected cells are made read-only/undeletable for the front end, and
checksums are added last, on the text the student receives.
"""

import copy
import os
import shutil

import nbformat

from . import nbformat_grader as fmt

CODE_STUB = "# YOUR CODE HERE\nraise NotImplementedError()"
TEXT_STUB = "YOUR ANSWER HERE"
BEGIN_SOLUTION, END_SOLUTION = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"


class RegionError(ValueError):
    pass


def _replace_regions(source, begin, end, stub_lines):
    """Source with each begin..end region replaced by stub_lines (indented like
    the begin line); returns (new source, whether any region was found)."""
    kept, inside, found = [], False, False
    for line in source.split("\n"):
        marker = line.strip()
        if marker == begin:
            if inside:
                raise RegionError(f"nested '{begin}'")
            inside = found = True
            indent = line[: line.find(begin)]
            kept.extend(indent + stub for stub in stub_lines)
        elif marker == end:
            if not inside:
                raise RegionError(f"'{end}' without '{begin}'")
            inside = False
        elif not inside:
            kept.append(line)
    if inside:
        raise RegionError(f"'{begin}' without '{end}'")
    return "\n".join(kept), found


def clear_solution(cell):
    stub = CODE_STUB if cell.cell_type == "code" else TEXT_STUB
    source, found = _replace_regions(cell.source, BEGIN_SOLUTION, END_SOLUTION, stub.split("\n"))
    if found and not fmt.is_solution(cell):
        raise RegionError("solution region in a cell not marked as a solution cell")
    if fmt.is_solution(cell) and not found:
        source = stub
    cell.source = source


def clear_hidden_tests(cell):
    source, found = _replace_regions(cell.source, BEGIN_HIDDEN, END_HIDDEN, [])
    if found and not fmt.is_test(cell):
        raise RegionError("hidden tests in a cell that is not an autograded test cell")
    cell.source = source


def lock_for_front_end(cell):
    """What nbgrader's LockCells does with its defaults."""
    if fmt.is_solution(cell) or fmt.is_grade(cell) or fmt.is_locked(cell):
        cell.metadata["deletable"] = False
    if fmt.is_locked(cell):
        cell.metadata["editable"] = False


def clear_output(cell):
    if cell.cell_type == "code":
        cell.outputs = []
        cell.execution_count = None
    for key in ("collapsed", "scrolled"):
        cell.metadata.pop(key, None)


def student_version(nb, notebook_name, keep_hidden_tests=False):
    """A new notebook: the student's copy of instructor notebook nb.

    keep_hidden_tests gives the version autograde runs (nbgrader keeps hidden
    tests in its gradebook copy). Raises MetadataError on the first bad cell."""
    errors = fmt.validate(nb, notebook_name)
    if errors:
        raise errors[0]
    student = copy.deepcopy(nb)
    student.metadata.pop("celltoolbar", None)
    for index, cell in enumerate(student.cells):
        try:
            clear_solution(cell)
            if not keep_hidden_tests:
                clear_hidden_tests(cell)
        except RegionError as error:
            raise fmt.MetadataError(notebook_name, index, fmt.grade_id(cell) or "", str(error)) from None
        clear_output(cell)
        lock_for_front_end(cell)
        fmt.add_checksum(cell)
    return student


def find_notebooks(folder):
    """Relative paths of the notebooks under folder, checkpoints and hidden folders skipped."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        found += [os.path.relpath(os.path.join(root, f), folder)
                  for f in sorted(files) if f.endswith(".ipynb")]
    return found


def read_notebook(path):
    return nbformat.read(path, as_version=4)


def release(source_dir, out_dir):
    """Writes the student version of every notebook in source_dir (other files
    copied as they are) to out_dir. All notebooks are validated before anything
    is written; returns the list of MetadataErrors (nothing written if any)."""
    notebooks = find_notebooks(source_dir)
    released, errors = {}, []
    for rel in notebooks:
        nb = read_notebook(os.path.join(source_dir, rel))
        problems = fmt.validate(nb, rel)
        if problems:
            errors += problems
            continue
        try:
            released[rel] = student_version(nb, rel)
        except fmt.MetadataError as error:
            errors.append(error)
    if errors:
        return errors
    for root, dirs, files in os.walk(source_dir):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        for name in files:
            rel = os.path.relpath(os.path.join(root, name), source_dir)
            target = os.path.join(out_dir, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if rel in released:
                nbformat.write(released[rel], target)
            elif not name.startswith("."):
                shutil.copy2(os.path.join(root, name), target)
    return []
