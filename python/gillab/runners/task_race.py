"""%%race's measurement in pure Python, shared by the kernel and by child interpreters.

The kernel imports this module and passes `measure()` its native tools (magics/framework/runner),
whose thread pool runs the workers; a child interpreter (--python) runs `measure()` with
python_tools' pool of `threading.Thread`s, called the same way. Both race the same generated
worker code, so "lost" means the same thing in both places. Runs on CPython 3.8+ (no imports
beyond the standard library and this folder, no syntax newer than 3.8).

The cell: everything before its last statement is setup (run afresh before every run); the
last statement is the read-modify-write that N threads repeat M times each; the check
expression (derived from the statement, or given) is the number that should grow by one per
repetition, e.g. `counter`, `box.count`, `totals['a']`, `len(items)`.
"""

import ast
import builtins
import sys
import textwrap
import threading
import time

try:  # as gillab.runners.task_race, in the kernel
    from .python_tools import PYTHON_TOOLS
    from .switch_interval import ScopedSwitchInterval
    from .cell_error import CellError
    from .student_code import as_the_students, compile_shown
except ImportError:  # from this folder, in a child (child.py)
    from python_tools import PYTHON_TOOLS
    from switch_interval import ScopedSwitchInterval
    from cell_error import CellError
    from student_code import as_the_students, compile_shown

MODES = ("unlocked", "lock", "batch", "per-thread")
# Calls whose effect is visible as a longer container: the check is then len(container).
_GROWING_METHODS = ("append", "appendleft", "add", "insert", "put", "put_nowait")
# Opens its own scope: names stored inside are not the shared state.
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _segment(source, node):
    return ast.get_source_segment(source, node)


def _default_check(source, statement):
    node = statement
    # The student's own `with lock:` around one statement: look inside.
    while isinstance(node, ast.With) and len(node.body) == 1:
        node = node.body[0]
    target = None
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        target = node.target
    if isinstance(target, (ast.Name, ast.Attribute, ast.Subscript)):
        return _segment(source, target)
    if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute) and node.value.func.attr in _GROWING_METHODS):
        return "len(%s)" % _segment(source, node.value.func.value)
    raise CellError("cannot tell which number the last statement changes; name it with --check EXPR "
                    "(e.g. --check counter or --check 'len(items)')")


def _stored_names(statement):
    """Names the statement binds at its own level: the worker declares them global."""
    names = set()

    def visit(node):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            raise CellError("the last statement must not be a global/nonlocal declaration: "
                            "%%race declares the names it assigns global itself")
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        if isinstance(node, _SCOPES):
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(statement)
    return sorted(names)


def split_cell(source, check=None):
    """The cell as {"setup", "statement", "check", "globals"}; raises CellError."""
    try:
        tree = ast.parse(source, "<race cell>")
    except SyntaxError as error:
        raise CellError("the cell does not parse: %s (line %s)" % (error.msg, error.lineno))
    except ValueError as error:  # a NUL byte in the cell
        raise CellError("the cell does not parse: %s" % error)
    if not tree.body:
        raise CellError("the cell is empty: write setup lines, then the statement to race "
                        "as the last line (e.g. counter = 0, then counter += 1)")
    last = tree.body[-1]
    lines = source.splitlines(True)
    before = "".join(lines[:last.lineno - 1])
    before += lines[last.lineno - 1].encode("utf-8")[:last.col_offset].decode("utf-8")
    check = check.strip() if check else _default_check(source, last)
    try:
        compile(check, "<race check>", "eval")
    except SyntaxError as error:
        raise CellError("the check %r is not an expression: %s" % (check, error.msg))
    except ValueError as error:
        raise CellError("the check %r is not an expression: %s" % (check, error))
    return {"setup": before, "statement": _segment(source, last), "check": check,
            "globals": _stored_names(last)}


def worker_source(parts, mode):
    """`def _race_worker(n)`: the statement n times, guarded as `mode` says."""
    lines = ["def _race_worker(_race_n):"]
    if parts["globals"]:
        lines.append("    global " + ", ".join(parts["globals"]))
    if mode in ("unlocked", "per-thread"):
        lines.append("    for _race_i in range(_race_n):")
        depth = 2
    elif mode == "lock":
        lines.append("    for _race_i in range(_race_n):")
        lines.append("        with _race_lock:")
        depth = 3
    elif mode == "batch":
        lines.append("    _race_full, _race_rest = divmod(_race_n, _race_batch)")
        lines.append("    for _race_b in range(_race_full + 1):")
        lines.append("        with _race_lock:")
        lines.append("            for _race_i in range(_race_batch if _race_b < _race_full else _race_rest):")
        depth = 4
    else:
        raise CellError("unknown mode %r; accepted: %s" % (mode, ", ".join(MODES)))
    return "\n".join(lines) + "\n" + textwrap.indent(parts["statement"], "    " * depth) + "\n"


class Prepared:
    """One run's fresh state: setup executed, workers compiled, the check's starting value."""

    def __init__(self, parts, mode, threads, batch):
        self.check = compile(parts["check"], "<race check>", "eval")
        self.check_text = parts["check"]
        self.per_thread = mode == "per-thread"
        count = threads if self.per_thread else 1
        self.namespaces = [self._namespace(parts, mode, batch) for _ in range(count)]
        self.initial = [self._value(ns) for ns in self.namespaces]
        if self.per_thread:
            self.workers = [ns["_race_worker"] for ns in self.namespaces]
        else:
            self.workers = [self.namespaces[0]["_race_worker"]] * threads

    @staticmethod
    def _namespace(parts, mode, batch):
        namespace = {"__name__": "__race__", "__builtins__": builtins,
                     "_race_lock": threading.Lock(), "_race_batch": batch}
        exec(compile_shown(parts["setup"], "<race cell>"), namespace)
        exec(compile_shown(worker_source(parts, mode), "<race worker>"), namespace)
        return namespace

    def _value(self, namespace):
        value = eval(self.check, namespace)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise CellError("the check %s gave %r, not a number; name a count with --check "
                            "(e.g. --check 'len(items)')" % (self.check_text, value))
        return value

    def got(self):
        """The check now; per thread, each thread's growth summed onto the start."""
        if not self.per_thread:
            return self._value(self.namespaces[0])
        return self.initial[0] + sum(self._value(ns) - start for ns, start in zip(self.namespaces, self.initial))


class StatementError(RuntimeError):
    one_line = True  # child.py reports str(error) as the error line

    def __init__(self, thread, error):
        RuntimeError.__init__(self, "the statement raised %s in thread %d: %s" % (type(error).__name__, thread, error))
        self.__cause__ = error


NO_BUDGET_S = 1e9  # a race ends by itself or by interrupt


def run_threads(tools, workers, iterations):
    """workers[k](iterations) on the pool of `tools` (the kernel's native one, or python_tools'
    in a child), released together; wall seconds from the release to the last one done. A
    worker's failure is re-raised: the native pool hands over its traceback text, the Python
    one the exception."""
    run = tools.threads(lambda k: workers[k](iterations), len(workers), len(workers), NO_BUDGET_S)
    if run["failed_job"] is not None:
        if isinstance(run["error"], str):
            raise RuntimeError("the statement raised in thread %d:\n%s" % (run["failed_job"], run["error"]))
        raise StatementError(run["failed_job"], run["error"])
    return run["wall_s"]


def _race(request, progress, tools):
    """request: cell, check, threads, iterations, runs, modes, batch, switch_interval_s (or None).
    tools: the kernel's native ones; None in a child. Returns the expected value and one record
    per run; the sequential reference run first."""
    tools = tools if tools is not None else PYTHON_TOOLS
    parts = split_cell(request["cell"], request.get("check"))
    threads, iterations = request["threads"], request["iterations"]
    runs, batch = request["runs"], request["batch"]
    with ScopedSwitchInterval(request.get("switch_interval_s") or None):
        if progress:
            progress("sequential reference: 1 thread x %d" % (threads * iterations))
        reference = Prepared(parts, "unlocked", 1, batch)
        start = time.perf_counter()
        reference.workers[0](threads * iterations)
        records = [{"mode": "sequential", "run": 1, "threads": 1, "got": reference.got(),
                    "wall_s": time.perf_counter() - start}]
        expected = records[0]["got"]
        for mode in request["modes"]:
            for run in range(1, runs + 1):
                if progress:
                    progress("%s, run %d/%d" % (mode, run, runs))
                prepared = Prepared(parts, mode, threads, batch)
                wall = run_threads(tools, prepared.workers, iterations)
                records.append({"mode": mode, "run": run, "threads": threads, "got": prepared.got(), "wall_s": wall})
    return {"expected": expected, "check": parts["check"], "statement": parts["statement"],
            "switch_interval_s": sys.getswitchinterval() if not request.get("switch_interval_s")
            else request["switch_interval_s"], "records": records}


def measure(request, progress=None, tools=None):
    """The race of `request` (see _race); an error in the student's setup or statement is raised
    from her frames on."""
    __tracebackhide__ = True  # IPython shows her frames, not this one
    try:
        return _race(request, progress, tools)
    except Exception as error:
        raise as_the_students(error)
