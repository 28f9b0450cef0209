"""The exact trace of GIL hand-overs in a child interpreter: where its GIL is, from the layout the
interpreter describes itself, and the trace library (libgillab_gil_trace.so, beside this file)
started and stopped around a block.

CPython 3.13 and later begin `_PyRuntime` with `_Py_DebugOffsets` (the offsets debuggers read):
among them, in the interpreter state, the pointer to its GIL (`ceval_gil`), the GIL it owns
(`gil_runtime_state`) and that GIL's `locked` and `last_holder` fields. The GIL's fields follow
one another in every version (interval, last_holder, locked, switch_number, then the condition
variable and mutex, then the switch pair), so `locked` places the rest. The fields are found by
their shape, not by their index (versions add fields before them), and checked before use while
this thread holds the GIL: the pointer names the interpreter's own GIL, the interval is
sys.getswitchinterval(), it is locked and this thread state is its holder. Anything else is a
one-line refusal, and nothing is read outside the interpreter state. Standard library only.
"""

import ctypes
import json
import os
import sys

try:  # as gillab.runners.gil_layout, in the kernel
    from .cell_error import CellError
except ImportError:  # from this folder, in a child (child.py)
    from cell_error import CellError

LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libgillab_gil_trace.so")
COOKIE = b"xdebugpy"
PTHREAD_COND_SIZE, PTHREAD_MUTEX_SIZE = 48, 40  # x86-64 glibc
HEADER_WORDS = 3  # cookie, version, free_threaded
SEARCHED_WORDS = 48


def _words(address, count):
    return list((ctypes.c_uint64 * count).from_address(address))


def _refuse(reason):
    raise CellError("--exact cannot trace this interpreter's GIL: %s" % reason)


def _shapes(words):
    """Candidates (ceval_gil, gil_runtime_state, locked, holder) among the offsets: a holder just
    before locked, both a few words into the GIL struct, its pointer before it."""
    for i in range(len(words) - 4):
        pointer, own, _enabled, locked, holder = words[i:i + 5]
        if holder + 8 == locked and own < locked <= own + 32 and pointer < own < 1 << 22:
            yield pointer, own, locked


def _interpreter():
    get = ctypes.pythonapi.PyInterpreterState_Get
    get.restype = ctypes.c_void_p
    state = ctypes.pythonapi.PyThreadState_Get
    state.restype = ctypes.c_void_p
    return get(), state()


def gil_addresses():
    """The GIL's fields as addresses: locked, switch_number, cond, mutex, switch_cond, switch_mutex;
    call with the GIL held (any Python code does)."""
    if getattr(sys, "_is_gil_enabled", lambda: True)() is False:
        _refuse("its GIL is off (a free-threaded build): there are no hand-overs to trace; "
                "--python NAME:PYTHON_GIL=1 (e.g. 3.13t:PYTHON_GIL=1) runs it with its GIL on")
    try:
        runtime = ctypes.addressof(ctypes.c_char.in_dll(ctypes.pythonapi, "_PyRuntime"))
    except ValueError:
        _refuse("the executable does not export _PyRuntime")
    if ctypes.string_at(runtime, 8) != COOKIE or _words(runtime + 8, 1)[0] != sys.hexversion:
        _refuse("CPython %d.%d keeps no layout of its GIL to read (_Py_DebugOffsets: 3.13 and later)"
                % sys.version_info[:2])
    interp, holder = _interpreter()
    interval_us = round(sys.getswitchinterval() * 1e6)
    for pointer, own, locked in _shapes(_words(runtime + 8 * HEADER_WORDS, SEARCHED_WORDS)):
        if _words(interp + pointer, 1)[0] != interp + own:
            continue
        gil, at = interp + own, interp + locked
        interval, last_holder = _words(at - 16, 2)
        if interval == interval_us and ctypes.c_int.from_address(at).value == 1 and last_holder == holder:
            cond = at + 16
            mutex = cond + PTHREAD_COND_SIZE
            switch_cond = mutex + PTHREAD_MUTEX_SIZE
            return gil, (at, at + 8, cond, mutex, switch_cond, switch_cond + PTHREAD_COND_SIZE)
    _refuse("its layout (CPython %s) does not match the GIL fields this trace knows" % sys.version.split()[0])


class ChildTrace:
    """`with ChildTrace() as trace:` traces every hand-over while the block runs; result() then
    answers as the kernel's GilTrace does."""

    def __init__(self):
        self._record = None

    def __enter__(self):
        if not os.path.exists(LIBRARY):
            _refuse("the trace library is not installed beside the runners")
        _, fields = gil_addresses()
        self._library = ctypes.PyDLL(LIBRARY)  # called with the GIL held, as the trace needs
        self._library.gillab_trace_start.restype = ctypes.c_char_p
        self._library.gillab_trace_start.argtypes = [ctypes.c_size_t] * 6
        self._library.gillab_trace_stop.restype = ctypes.c_char_p
        self._interval = sys.getswitchinterval()
        reason = self._library.gillab_trace_start(*fields).decode()
        if reason:
            _refuse(reason)
        return self

    def __exit__(self, *exc):
        self._record = json.loads(self._library.gillab_trace_stop().decode())
        self._record.update(interval_s=self._interval, interval_end_s=sys.getswitchinterval())

    def result(self):
        """The trace read as hand-overs (GilTrace.result()'s shape)."""
        return self._record
