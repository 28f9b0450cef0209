"""What a child interpreter has instead of the kernel's native tools (magics/framework/runner's
native_tools(): the pool of magics/workers/thread_pool, the watchdog of magics/instruments/budget):
the same calls, in pure Python. A runner gets one or the other as `tools` and calls them alike:
tools.threads(job, jobs, workers, budget_s), tools.watchdog(after_s, thread_ids),
tools.RunOverBudget, tools.probe(schedule, every_s, capacity) (lateness_probe.py here).
Standard library only, CPython 3.8+ (no newer syntax).
"""

import functools
import threading
import time

try:  # as gillab.runners.python_tools, in the kernel
    from .lateness_probe import LatenessProbe
except ImportError:  # from this folder, in a child (child.py)
    from lateness_probe import LatenessProbe

try:
    import ctypes

    set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
    set_async_exc.argtypes = (ctypes.c_ulong, ctypes.c_void_p)
except (ImportError, AttributeError):  # a build without ctypes: budget checked between jobs
    set_async_exc = None

# How long stopped Python threads get to see RunOverBudget before the run is given up on.
STOP_GRACE_S = 2.0


class RunOverBudget(BaseException):
    """Raised in a job still running when --budget is spent (BaseException: `except
    Exception` in a job does not swallow it). The kernel's own type is tools.RunOverBudget."""


def _raise_in(thread_ids, exception_type):
    if set_async_exc is None:
        return
    for ident in thread_ids:
        set_async_exc(ident, id(exception_type) if exception_type else None)


class Watchdog:
    """Raises RunOverBudget in `thread_ids` once `after_s` have passed, and again every
    REFIRE_S (the next asyncio job that blocks the loop is stopped too), as the kernel's
    native watchdog does. stop() is a C-level call, so no bytecode runs between calling it and
    the watchdog seeing it; the watchdog checks it and raises with no switch point between, so
    no exception is raised after stop() returns. disarm() withdraws one raised but not yet
    delivered, so none leaks into later code."""

    REFIRE_S = 0.1

    def __init__(self, after_s, thread_ids):
        self._ids = list(thread_ids)
        self._stopped = []
        self.stop = functools.partial(self._stopped.append, True)
        self._disarmed = threading.Event()
        self._thread = None
        if set_async_exc is not None:
            self._thread = threading.Thread(target=self._watch, args=(time.perf_counter() + after_s,), daemon=True)
            self._thread.start()

    def _watch(self, deadline):
        wait = max(0.0, deadline - time.perf_counter())
        exception = id(RunOverBudget)
        while not self._disarmed.wait(wait):
            for ident in self._ids:
                if self._stopped:
                    return
                set_async_exc(ident, exception)
            wait = self.REFIRE_S

    def disarm(self):
        self.stop()
        self._disarmed.set()
        if self._thread is not None:
            self._thread.join()
            _raise_in(self._ids, None)


def python_threads(job, jobs, workers, budget_s):
    """`workers` threads, parked at a barrier, take the next job index until none is left.
    Returns what the native pool returns: results, wall_s (release to last job done),
    over_budget, and failed_job with its error (the exception) when one raised."""
    results = [None] * jobs
    next_index = iter(range(jobs))
    take = threading.Lock()
    failures = []
    finished = []
    start_line = threading.Barrier(workers + 1)

    def worker():
        start_line.wait()
        index = None
        try:
            while not failures:
                with take:
                    index = next(next_index, None)
                if index is None:
                    break
                results[index] = job(index)
        except RunOverBudget:
            pass
        except BaseException as error:  # reported from the timing thread
            failures.append((index, error))
        finished.append(time.perf_counter())

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(workers)]
    for thread in threads:
        thread.start()
    start_line.wait()
    start = time.perf_counter()
    deadline = start + budget_s
    over_budget = False
    for thread in threads:
        thread.join(max(0.0, deadline - time.perf_counter()))
        if thread.is_alive():
            over_budget = True
            break
    if over_budget:
        _raise_in([t.ident for t in threads if t.is_alive()], RunOverBudget)
        for thread in threads:
            thread.join(STOP_GRACE_S)
    wall = (max(finished) if len(finished) == workers else time.perf_counter()) - start
    run = {"results": results, "wall_s": wall, "over_budget": over_budget, "failed_job": None, "error": None}
    if failures:
        run["failed_job"], run["error"] = failures[0]
    return run


class PYTHON_TOOLS:
    """What a child interpreter has instead of the kernel's native tools."""
    threads = staticmethod(python_threads)
    watchdog = Watchdog
    RunOverBudget = RunOverBudget
    probe = LatenessProbe
