"""`%%gilwatch --exact`'s measuring half: runs the cell inside the exact trace of GIL hand-overs
(the native `gil_trace` tool) and answers with what it recorded, each thread named.

The trace gives threads by ident; a thread that started and ended inside the cell is gone from
`threading` by the time the trace is read, so each new thread's name is noted as it starts (a
profile hook that records the name on the thread's first call and removes itself). Standard
library only: the result is read in C++ (magics/gilwatch_exact.cpp).
"""

import sys
import threading

try:  # as gillab.runners.task_gil_trace, in the kernel
    from .cell_error import CellError
except ImportError:  # from this folder, in a child (child.py)
    from cell_error import CellError


class _ThreadNames:
    """While it is entered, notes the name of every thread that starts, by ident."""

    def __init__(self):
        self.names = {t.ident: t.name for t in threading.enumerate()}
        self._saved = None

    def _noted(self, frame, event, arg):
        # Called once, on the new thread's first call: keeps its name, then profiles nothing more.
        sys.setprofile(None)
        thread = threading.current_thread()
        self.names[thread.ident] = thread.name

    def __enter__(self):
        self._saved = threading.getprofile() if hasattr(threading, "getprofile") else threading._profile_hook
        threading.setprofile(self._noted)
        return self

    def __exit__(self, *exc):
        threading.setprofile(self._saved)
        self.names.update((t.ident, t.name) for t in threading.enumerate())


def measure(request, progress=None, tools=None):
    """request: {"task": "gil_trace"}. In the kernel `tools` brings the trace (tools.gil_trace)
    and the cell, compiled and bound to the user's namespace as the shell runs it (tools.cell()). Answers the
    trace's result (GilTrace.result(): interval_s, duration_s, switches, lost, forced, voluntary,
    threads with their spans, handovers) with each thread's "name" added."""
    if tools is None or not hasattr(tools, "gil_trace") or not hasattr(tools, "cell"):
        raise CellError("--exact traces the kernel only: a child interpreter has no GIL trace here")
    with _ThreadNames() as names:
        with tools.gil_trace() as trace:
            tools.cell()
    result = trace.result()
    for thread in result["threads"]:
        thread["name"] = names.names.get(thread["ident"], "thread %d" % thread["ident"])
    return result
