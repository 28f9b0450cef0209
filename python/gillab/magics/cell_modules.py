"""A magic's cell as an importable module of its own, in a private temp folder: process
workers can import it under spawn and forkserver, and a child interpreter (--python) imports
the same file. magics/framework/cell_module.cpp owns one for the length of a magic call."""

import ast
import difflib
import importlib
import linecache
import os
import re
import shutil
import sys
import tempfile
import uuid

from IPython.core.error import UsageError

PREFIX = "gillab_cell_"


def _bound_names(statement):
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [statement.name]
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return [alias.asname or alias.name.split(".")[0] for alias in statement.names]
    targets = statement.targets if isinstance(statement, ast.Assign) else \
        [statement.target] if isinstance(statement, (ast.AnnAssign, ast.AugAssign)) else []
    return [node.id for target in targets for node in ast.walk(target) if isinstance(node, ast.Name)]


def _remove_folders_of_dead_kernels():
    """A kernel that died in the middle of a magic (a crash, kill -9) left its folder
    behind: the folder names its kernel, so a later kernel removes it."""
    for stale in os.listdir(tempfile.gettempdir()):
        owner = re.fullmatch(r"gillab-(\d+)-\w+", stale)
        if not owner or int(owner.group(1)) == os.getpid():
            continue
        path = os.path.join(tempfile.gettempdir(), stale)
        try:
            if os.stat(path).st_uid == os.getuid():
                os.kill(int(owner.group(1)), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except OSError:  # gone since listed (a live kernel's magic ended), or not ours to signal
            pass


def _forget_removed_sources():
    """A job's traceback is shown after its module is gone, and showing it leaves lazy
    linecache entries for that file: those of earlier calls are dropped here."""
    for stale in [path for path in linecache.cache if os.path.basename(path).startswith(PREFIX)]:
        if not os.path.exists(stale):
            del linecache.cache[stale]


def _missing_entry_point(magic, defined, entry_points):
    """A cell that only defines functions, none of them an entry point, meant one (a misspelt
    `def jb`): timed as the job's body it would measure nothing, silently."""
    names = ", ".join(f"{name}()" for name in sorted(defined))
    wanted = " or ".join(f"{name}(i)" for name in entry_points)
    hints = [f" (did you mean {match[0]} for {name}?)" for name in sorted(defined)
             for match in [difflib.get_close_matches(name, entry_points, n=1, cutoff=0.5)] if match]
    return (f"%{magic}: the cell defines {names} but no {wanted}{hints[0] if hints else ''}: name the "
            f"function {entry_points[0]}, or write only the job's body (without def)")


def _only_definitions(tree):
    """True when the cell only defines and imports: run as the job's body it would do nothing."""
    quiet = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)
    return all(isinstance(node, quiet) for node in tree.body)


def write(magic, source, entry_points):
    """Writes the cell as a module; returns (folder, module name, top-level names). A cell
    that defines none of entry_points is the body of the first, a function of `i`."""
    try:
        tree = ast.parse(source)
    except SyntaxError as error:
        raise UsageError(f"%{magic}: the cell is not valid Python: {error.msg} (line {error.lineno})") from None
    except ValueError as error:  # a NUL byte in the cell
        raise UsageError(f"%{magic}: the cell is not valid Python: {error}") from None
    defined = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    top_level_names = sorted({name for statement in tree.body for name in _bound_names(statement)})
    if not defined & set(entry_points):
        if defined and _only_definitions(tree):
            raise UsageError(_missing_entry_point(magic, defined, entry_points))
        arguments = ast.arguments(posonlyargs=[], args=[ast.arg(arg="i")], kwonlyargs=[], kw_defaults=[], defaults=[])
        job = ast.FunctionDef(name=entry_points[0], args=arguments, body=tree.body or [ast.Pass()], decorator_list=[])
        tree = ast.fix_missing_locations(ast.Module(body=[job], type_ignores=[]))
        top_level_names = [entry_points[0]]
    _remove_folders_of_dead_kernels()
    _forget_removed_sources()
    folder = tempfile.mkdtemp(prefix=f"gillab-{os.getpid()}-")  # mkdtemp makes it 0700
    name = PREFIX + uuid.uuid4().hex[:12]
    with open(os.path.join(folder, name + ".py"), "w") as out:
        out.write(ast.unparse(tree) + "\n")
    return folder, name, top_level_names


def load(folder, name):
    sys.path.append(folder)
    try:
        return importlib.import_module(name)
    except BaseException:
        sys.path.remove(folder)
        sys.modules.pop(name, None)
        raise


def remove(folder, name):
    if folder in sys.path:
        sys.path.remove(folder)
    sys.modules.pop(name, None)
    sys.path_importer_cache.pop(folder, None)  # else one finder per magic call
    shutil.rmtree(folder, ignore_errors=True)
