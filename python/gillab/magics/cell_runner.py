"""Runs a magic's cell in the user's namespace as the shell would run it.

IPython's own transformer turns %magics and !commands into Python first, so a
cell under %%gilwatch reads like any other cell; top-level await is allowed
and runs in a fresh event loop (the magic blocks the kernel's loop anyway).
"""

import ast
import asyncio
import inspect

from IPython import get_ipython


class CellSyntaxError(ValueError):
    """The cell is not valid Python; the message is one line for the student."""


def compile_cell(source, magic):
    shell = get_ipython()
    if shell is not None:
        source = shell.transform_cell(source)
    try:
        return compile(source, f"<%%{magic} cell>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except SyntaxError as error:
        raise CellSyntaxError(f"%%{magic}: the cell is not valid Python: {error.msg} (line {error.lineno})") from None
    except ValueError as error:  # 3.11's compile refuses a null byte with ValueError, not SyntaxError
        raise CellSyntaxError(f"%%{magic}: the cell is not valid Python: {error}") from None


def run(code, namespace):
    """Runs compiled `code` (from compile_cell) in `namespace`."""
    outcome = eval(code, namespace)
    if inspect.iscoroutine(outcome):
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(outcome)
        finally:
            loop.close()
