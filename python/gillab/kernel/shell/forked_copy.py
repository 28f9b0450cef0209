"""Errors in a forked copy of the kernel (os.fork() in a cell whose child does not
end with os._exit), formatted as plain Python formats them.

IPython's coloured tracebacks set up stack_data and pygments in each process the first
time, a good part of a second of CPU: the fifty copies of a fork bomb, each formatting
its BlockingIOError, kept the cell busy past a grader's timeout. The copy's traceback is
only printed on its way out (kernel/forked_copy.cpp ends it after its copy of the cell),
so the traceback module's text does.
"""

import os
import traceback

from . import error_names


def _plain_showtraceback(shell):
    def showtraceback(exc_tuple=None, *args, **kwargs):
        try:
            etype, value, tb = shell._get_exc_info(exc_tuple)
        except ValueError:  # no exception to show
            return
        while tb is not None and tb.tb_frame.f_globals.get("__name__", "").startswith("IPython."):
            tb = tb.tb_next  # the shell's own frames, as IPython leaves them out
        text = "".join(traceback.format_exception(etype, value, tb)).rstrip("\n")
        error_names.record(shell, etype, value, [text])
    return showtraceback


def install(shell):
    os.register_at_fork(after_in_child=lambda: setattr(shell, "showtraceback", _plain_showtraceback(shell)))
