"""The native magics (the `_gillab` module, C++) introduced to IPython, so `%lsmagic` lists
them and `%name?` shows their manual: in gillab's kernel (gillab.kernel.shell) and under
`%load_ext gillab` in a stock IPython kernel (gillab.load_ipython_extension).
"""

import asyncio
import contextlib

from IPython.core.magic import Magics, magics_class, line_magic, cell_magic, line_cell_magic

import _gillab
from gillab import results

_DECORATORS = {"line": line_magic, "cell": cell_magic, "line_cell": line_cell_magic}


@contextlib.contextmanager
def _outside_the_kernels_event_loop():
    """ipykernel runs cells inside its asyncio loop, where a magic's own
    asyncio.run() refuses to start. The magic blocks that loop anyway, so it
    runs as if none were running, and the kernel's loop is put back after."""
    loop = asyncio._get_running_loop()
    if loop is None:
        yield
        return
    asyncio._set_running_loop(None)
    try:
        yield
    finally:
        asyncio._set_running_loop(loop)
        asyncio.set_event_loop(loop)  # asyncio.run() leaves none set


def _run(name, line, cell, user_ns):
    """C++ parses the line, measures and answers with plain data; the result object the
    student reads is made here, and stored under -o NAME. A job that raised is shown by its
    message, which holds the job's own traceback, without the magic's frames above it."""
    __tracebackhide__ = True  # IPython leaves this frame out of the traceback it shows
    with _outside_the_kernels_event_loop():
        try:
            answer = _gillab.run(name, line, cell, user_ns)
        except Exception as error:
            if not getattr(error, "one_line", False):
                raise
            raise error.with_traceback(None) from None
    result = results.result_for(None, answer["presentation"], answer["magic"])
    if answer["out"] is not None:
        user_ns[answer["out"]] = result
    return result


def _native_magic(name, kind):
    if kind == "line":
        def magic(self, line):
            __tracebackhide__ = True
            return _run(name, line, None, self.shell.user_ns)
    else:
        def magic(self, line, cell=None):
            __tracebackhide__ = True
            return _run(name, line, cell, self.shell.user_ns)
    magic.__name__ = name
    magic.__doc__ = _gillab.help(name)
    return _DECORATORS[kind](magic)


def _magics_class():
    body = {name: _native_magic(name, kind) for name, kind in _gillab.magics()}
    return magics_class(type("GillabMagics", (Magics,), body))


def load_ipython_extension(shell):
    shell.register_magics(_magics_class())
