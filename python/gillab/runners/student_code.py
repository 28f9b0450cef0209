"""The student's code as a runner meets it: her cell compiled, and her errors shown from her frames.

compile_cell is the one way a magic's cell becomes code, in the kernel and in a child: in the
kernel IPython's own transformer turns %magics, !commands and the like into Python first (the
cell reads like any other cell there); a child has no IPython and compiles the cell as written.
Top-level await is allowed in both (run_cell runs the coroutine it gives).

students_frames cuts a traceback to the student's code: a runner re-raises her error with it,
in a frame that sets __tracebackhide__ (which IPython honours), so her line comes first and no
runner's frame is shown. Standard library only, CPython 3.8+."""

import ast
import builtins
import asyncio
import inspect
import linecache
import os
import sys
import warnings

try:  # as gillab.runners.student_code, in the kernel
    from .cell_error import CellError
except ImportError:  # from this folder, in a child (child.py)
    from cell_error import CellError

_RUNNERS = os.path.dirname(os.path.abspath(__file__))


def _ipython_shell():
    ipython = sys.modules.get("IPython")  # loaded in the kernel; never imported here
    return ipython.get_ipython() if ipython is not None else None


def compile_cell(source, magic):
    """The cell as code named "<%%magic cell>"; CellError (one line) when it is not valid Python."""
    shell = _ipython_shell()
    if shell is not None:
        with warnings.catch_warnings():
            # IPython warns on stderr of a cell holding a line break Python does not end lines with
            # (U+2029, \x1c, ...); compile below then refuses such a cell in one line.
            warnings.filterwarnings("ignore", message="`make_tokens_by_line`", category=UserWarning)
            source = shell.transform_cell(source)
    try:
        return compile_shown(source, "<%%" + magic + " cell>", ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except SyntaxError as error:
        raise CellError("the cell is not valid Python: %s (line %s)" % (error.msg, error.lineno)) from None
    except ValueError as error:  # 3.11's compile refuses a null byte with ValueError, not SyntaxError
        raise CellError("the cell is not valid Python: %s" % error) from None


def compile_shown(source, filename, flags=0):
    """compile(source, filename, "exec"), its lines kept where a traceback looks them up (as
    IPython keeps a cell's), so an error in it shows the line, not only its number."""
    code = compile(source, filename, "exec", flags=flags)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return code


def cell_namespace(tools):
    """Where a cell runs: the user's namespace in the kernel (tools.namespace), a fresh __main__
    of its own in a child (tools None), where the kernel's names are not."""
    return tools.namespace if tools is not None else {"__name__": "__main__", "__builtins__": builtins}


def run_cell(code, namespace):
    """Runs `code` from compile_cell in `namespace`; a top-level await in a fresh event loop. An
    error in it is raised again from her frames on (as_the_students)."""
    __tracebackhide__ = True  # IPython shows her frames, not this one
    try:
        outcome = eval(code, namespace)
        if inspect.iscoroutine(outcome):
            loop = asyncio.new_event_loop()
            try:
                loop.run_until_complete(outcome)
            finally:
                loop.close()
    except Exception as error:
        raise as_the_students(error)


def _in_runners(tb):
    return os.path.dirname(os.path.abspath(tb.tb_frame.f_code.co_filename)) == _RUNNERS


def students_frames(tb):
    """The traceback from the frame after the runners' last one on: the student's code first, not
    the loop that called it. Whole when the error came from a runner itself."""
    last = None
    entry = tb
    while entry is not None:
        if _in_runners(entry):
            last = entry
        entry = entry.tb_next
    if last is None or last.tb_next is None:
        return tb
    return last.tb_next


def as_the_students(error):
    """`error` with its traceback cut to her frames, to raise again: `raise as_the_students(e)`."""
    return error.with_traceback(students_frames(error.__traceback__))
