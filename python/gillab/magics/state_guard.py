"""What a magic leaves as it found it: the scope every magic runs in.

A magic runs student code as its jobs; what that code changes of the kernel outside its own
objects is put back when the magic ends, on success, on error and on interrupt: the switch
interval, the interpreter state listed in kernel_state, the child processes a job left running.
Python threads a job left running are named in the note; those still running code are stopped
(SystemExit, which ends a thread silently), those waiting without using a CPU stay, since an idle
pool worker or a queue's feeder thread may belong to an object that lives on. A plain cell is not
guarded: its changes are the student's.

The framework (magics/framework/registry.cpp, through python_side) opens a MagicStateGuard
around every magic, calls restore() for the note its result shows, and leaves it however the
magic ended. A magic whose purpose is to change what a guard would put back says so with
keep_switch_interval() or keep_interpreter_state(), which mark the innermost open guard.
"""

import sys

from gillab.magics import kernel_state
from gillab.runners import process_tree

# Threads a job left that were finishing anyway get this long to end before they are judged.
FINISHING_S = 0.05
# A thread is busy when it used at least BUSY_SHARE of a CPU over BUSY_WINDOW_S: running code,
# rather than waiting on a lock, a queue or a sleep.
BUSY_WINDOW_S = 0.1
BUSY_SHARE = 0.005
# How long a busy thread gets to see its SystemExit (one blocked in a C call sees it on return).
STOP_S = 1.0

_open = []  # the guards of the magics running now, innermost last


def keep_switch_interval():
    """For a magic whose purpose is to set the interval (%switchinterval 1ms): the innermost
    running magic keeps the interval it finds at its end."""
    if _open:
        _open[-1].keep_interval = True


def keep_interpreter_state():
    """For a magic whose purpose is to change the interpreter state across cells (%gilwatch start
    installs its thread-start hook, stop removes it): the innermost running magic keeps the
    state of kernel_state that it finds at its end."""
    if _open:
        _open[-1].keep_state = True


def _threads_named(threads):
    """'2 threads (worker, Thread-3)': how a note names them."""
    return f"{len(threads)} thread{'' if len(threads) == 1 else 's'} ({', '.join(t.name for t in threads)})"


def _interval_text(seconds):
    return f"{seconds * 1e3:g} ms"


class MagicStateGuard:
    """The scope of one magic, on the kernel's main thread: `with MagicStateGuard(tools) as guard:`
    snapshots on entering, guard.restore() puts back and says what that was, and leaving puts back
    whatever restore() was not called for (an error, KeyboardInterrupt, which propagate as they
    are). Guards nest (a magic's cell may run another magic): each restores its own snapshot.

    `tools` find and stop the threads a job left running: live_threads(),
    busy_threads(threads, window_s, share),
    raise_in_threads(threads, exception_type) and wait_for_threads(threads, budget_s) of the native
    module (magics/framework/thread_tools). They are the kernel's native ones rather than ctypes
    and /proc read here because the interrupt stops a cell's threads with the same functions: one
    definition of which threads are live and how one is judged busy, stopped and waited for."""

    def __init__(self, tools):
        self._tools = tools
        self.keep_interval = False
        self.keep_state = False
        self._restored = True  # nothing to put back until entered

    def __enter__(self):
        self._interval_s = sys.getswitchinterval()
        self._processes = process_tree.live_descendants()
        self._threads = {t.ident for t in self._tools.live_threads()}
        self._saved = kernel_state.snapshot()
        self._restored = False
        _open.append(self)
        return self

    def __exit__(self, error_type, error, traceback):
        _open.remove(self)
        if self._restored:
            return False
        try:
            self.restore()
        except BaseException:
            if error_type is None:
                raise
            # The magic's own error is what the student must see, not one of putting back after it.
        return False

    def restore(self):
        """Puts everything back now; returns one line for the result's notes saying what that
        was ('' when nothing had changed). Called once: leaving the guard then puts back nothing."""
        self._restored = True
        clauses = []
        restored = self._restore_interval() + ([] if self.keep_state else kernel_state.restore(self._saved))
        if restored:
            clauses.append("put back after the jobs: " + ", ".join(restored))
        left = process_tree.started_since(self._processes)
        if left:
            process_tree.kill_trees(left)
            process_tree.reap(left)
            clauses.append(f"stopped {len(left)} child process{'' if len(left) == 1 else 'es'} a job left running")
        clauses += self._settle_threads()
        return "gillab: " + "; ".join(clauses) + "." if clauses else ""

    def _restore_interval(self):
        now_s = sys.getswitchinterval()
        if self.keep_interval or now_s == self._interval_s:
            return []
        sys.setswitchinterval(self._interval_s)
        return [f"the switch interval (a job set {_interval_text(now_s)}; back to {_interval_text(self._interval_s)})"]

    def _settle_threads(self):
        """The threads the jobs left running: the busy ones stopped, the idle ones left. Clauses
        for the note (none when every thread a job started has ended)."""
        left = [t for t in self._tools.live_threads() if t.ident not in self._threads]
        if left:
            left = self._tools.wait_for_threads(left, FINISHING_S)
        if not left:
            return []
        busy = self._tools.busy_threads(left, BUSY_WINDOW_S, BUSY_SHARE)
        self._tools.raise_in_threads(busy, SystemExit)
        unstopped = self._tools.wait_for_threads(busy, STOP_S)
        stopped = [t for t in busy if t not in unstopped]
        idle = [t for t in left if t not in busy]
        clauses = []
        if stopped:
            clauses.append(f"stopped {_threads_named(stopped)} a job left running")
        if unstopped:
            clauses.append(f"{_threads_named(unstopped)} a job left running would not stop")
        if idle:
            clauses.append(f"left {_threads_named(idle)} a job started: waiting, using no CPU")
        return clauses
