"""What of the interpreter a magic's jobs may change, and the magic puts back.

A magic runs student code as its jobs (in threads, processes, tasks, or the
cell itself under a probe). What that code changes outside its own objects
would carry into every later cell and skew every later measurement: garbage
collection switched off, a trace function, a changed working folder, the
kernel pinned to one CPU, SIGCHLD ignored (which breaks every later pool),
warnings turned into errors. A magic promises to leave the kernel as it found
it, so each one runs between snapshot() and restore(); a plain cell's changes
are the student's and stay.

The guard around each magic (state_guard.py) calls this module; it puts back the switch
interval, the child processes and the threads itself.
"""

import _signal
import asyncio
import gc
import os
import signal
import sys
import threading
import warnings

# Signals whose disposition code may set (SIGKILL and SIGSTOP cannot be caught).
_SIGNALS = sorted(set(signal.valid_signals()) - {signal.SIGKILL, signal.SIGSTOP})


def _umask():
    """Read without setting it (os.umask can only swap): another thread may be creating a file."""
    fd = os.open("/proc/self/status", os.O_RDONLY)
    try:
        status = os.read(fd, 1 << 16)
    finally:
        os.close(fd)
    start = status.find(b"\nUmask:")
    if start < 0:
        raise OSError("no Umask line in /proc/self/status")
    return int(status[start + 7:status.index(b"\n", start + 1)], 8)


def _signal_handlers():
    # _signal's own getsignal: signal.getsignal wraps each answer in an enum,
    # which made this read 20 times slower (docs/benchmarks.md, magic state).
    handlers = {}
    for signum in _SIGNALS:
        try:
            handlers[signum] = _signal.getsignal(signum)
        except (OSError, ValueError):
            pass
    return handlers


def _set_signal_handlers(handlers):
    for signum, handler in handlers.items():
        if handler is not None:  # None: set outside Python, nothing Python can put back
            signal.signal(signum, handler)


def _environment():
    # The encoded mapping os.environ keeps (bytes on POSIX): copying it skips
    # decoding every entry, a tenth of the cost of dict(os.environ).
    return dict(os.environ._data)


def _set_environment(saved):
    now = os.environ._data
    for key in set(now) - set(saved):
        del os.environ[os.environ.decodekey(key)]
    for key, value in saved.items():
        if now.get(key) != value:
            os.environ[os.environ.decodekey(key)] = os.environ.decodevalue(value)


def _set_warning_filters(saved):
    warnings.filters[:] = saved
    warnings._filters_mutated()  # the module's own cache of the filters


def _set_gc(saved):
    enabled, threshold = saved
    gc.set_threshold(*threshold)
    (gc.enable if enabled else gc.disable)()


# name -> (read, write, compare by identity). One line per piece of state, so
# that what is covered can be read here at a glance.
_STATE = {
    "garbage collection": (lambda: (gc.isenabled(), gc.get_threshold()), _set_gc, False),
    "the trace function": (sys.gettrace, sys.settrace, True),
    "the profile function": (sys.getprofile, sys.setprofile, True),
    "new threads' trace function": (threading.gettrace, threading.settrace, True),
    "new threads' profile function": (threading.getprofile, threading.setprofile, True),
    "the recursion limit": (sys.getrecursionlimit, sys.setrecursionlimit, False),
    "the integer string conversion limit": (sys.get_int_max_str_digits, sys.set_int_max_str_digits, False),
    "new threads' stack size": (threading.stack_size, threading.stack_size, False),
    "the working folder": (os.getcwd, os.chdir, False),
    "the file creation mask": (_umask, os.umask, False),
    "the environment": (_environment, _set_environment, False),
    "sys.path": (lambda: list(sys.path), lambda saved: sys.path.__setitem__(slice(None), saved), False),
    "the warning filters": (lambda: list(warnings.filters), _set_warning_filters, False),
    "sys.excepthook": (lambda: sys.excepthook, lambda hook: setattr(sys, "excepthook", hook), True),
    "threading.excepthook": (lambda: threading.excepthook, lambda hook: setattr(threading, "excepthook", hook), True),
    "sys.unraisablehook": (lambda: sys.unraisablehook, lambda hook: setattr(sys, "unraisablehook", hook), True),
    "the asyncio event loop policy": (asyncio.get_event_loop_policy, asyncio.set_event_loop_policy, True),
    "the CPUs the kernel may run on": (lambda: os.sched_getaffinity(0), lambda cpus: os.sched_setaffinity(0, cpus),
                                       False),
    "signal handlers": (_signal_handlers, _set_signal_handlers, False),
}


def snapshot():
    """The state as it is now (call on the kernel's main thread)."""
    saved = {}
    for name, (read, _, _) in _STATE.items():
        try:
            saved[name] = read()
        except (OSError, ValueError):
            pass  # e.g. the working folder was removed: nothing to return to
    return saved


def _differs(name, before, now):
    by_identity = _STATE[name][2]
    return before is not now if by_identity else before != now


def restore(saved):
    """Puts back what changed since `saved`; returns what that was, by name.
    Each piece on its own: one that cannot be put back (a working folder since
    deleted) does not keep the others."""
    restored = []
    for name, before in saved.items():
        read, write, _ = _STATE[name]
        try:
            if _differs(name, before, read()):
                write(before)
                restored.append(name)
        except (OSError, ValueError, TypeError):
            pass
    return restored
