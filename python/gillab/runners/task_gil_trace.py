"""`%%gilwatch --exact`'s measuring half: runs the cell inside the exact trace of GIL hand-overs
and answers with what it recorded, each thread named. In the kernel the trace is the native
`gil_trace` tool; in a child interpreter (--python) it is the trace library built beside this file
(libgillab_gil_trace.so, loaded with ctypes), given the GIL's addresses from the interpreter's own
layout (gil_layout.py), which refuses in one line an interpreter it cannot read.

The trace gives threads by ident; a thread that started and ended inside the cell is gone from
`threading` by the time the trace is read, so each new thread's name is noted as it starts (a
profile hook that records the name on the thread's first call and removes itself). Standard
library only: the result is read in C++ (magics/gilwatch_exact.cpp).
"""

import sys
import threading

try:  # as gillab.runners.task_gil_trace, in the kernel
    from .gil_layout import ChildTrace
    from .student_code import cell_namespace, compile_cell, run_cell
except ImportError:  # from this folder, in a child (child.py)
    from gil_layout import ChildTrace
    from student_code import cell_namespace, compile_cell, run_cell


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
    """request: {"task": "gil_trace", "cell": the cell's source}. In the kernel `tools` brings the
    trace (tools.gil_trace) and the user's namespace (tools.namespace), where the cell runs as the
    shell runs it; in a child the cell runs in a fresh namespace inside the trace library's trace.
    Answers the trace's result (interval_s, interval_end_s, duration_s, switches, lost, forced,
    voluntary, threads with their spans, handovers) with each thread's "name" added."""
    __tracebackhide__ = True  # an error in the cell shows the student's frames, not this one
    code = compile_cell(request["cell"], "gilwatch")
    namespace = cell_namespace(tools)
    trace = tools.gil_trace() if tools is not None else ChildTrace()
    with _ThreadNames() as names:
        with trace:
            run_cell(code, namespace)
    result = trace.result()
    for thread in result["threads"]:
        thread["name"] = names.names.get(thread["ident"], "thread %d" % thread["ident"])
    return result
