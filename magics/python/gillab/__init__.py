"""gillab: magics that measure how CPython's GIL shapes threads, processes and asyncio.

The magics are native (the `_gillab` module, C++); this file only introduces
them to IPython, so `%lsmagic` lists them and `%name?` shows their manual.
"""

from IPython.core.magic import Magics, magics_class, line_magic, cell_magic, line_cell_magic

import _gillab

__all__ = ["load_ipython_extension", "Result"]

Result = _gillab.Result

_DECORATORS = {"line": line_magic, "cell": cell_magic, "line_cell": line_cell_magic}


def _native_magic(name, kind):
    if kind == "line":
        def magic(self, line):
            return _gillab.run(name, line, None, self.shell.user_ns)
    else:
        def magic(self, line, cell=None):
            return _gillab.run(name, line, cell, self.shell.user_ns)
    magic.__name__ = name
    magic.__doc__ = _gillab.help(name)
    return _DECORATORS[kind](magic)


def _magics_class():
    body = {name: _native_magic(name, kind) for name, kind in _gillab.magics()}
    return magics_class(type("GillabMagics", (Magics,), body))


def load_ipython_extension(shell):
    shell.register_magics(_magics_class())
