"""%%gilbench's measurement in a child interpreter (--python).

The kernel writes the cell as a module (magics/core/cell_module), plans the configurations
(mode, workers, jobs) and sends them here; this module imports the cell and times each
configuration --warmup + --repeats times, the way the kernel does, and returns the raw figures
(wall and CPU seconds per run, budget stops, whether the results matched sequential). The
kernel turns them into medians, spreads, speed-ups and flags with the same code as its own
runs, so the figures mean the same in both places. Where the means differ:
  * threads: `threading.Thread` workers released together from a `threading.Barrier` take job
    indices from a shared counter, as the kernel's native pool does; wall time runs from the
    release to the last job done, so Python thread creation is outside it in both places;
  * over --budget: RunOverBudget is raised in the running threads with ctypes'
    PyThreadState_SetAsyncExc (the kernel does the same natively); without ctypes a run is
    stopped only between jobs;
  * CPU time: user+system of the child and its reaped children (os.times), as in the kernel.
Standard library only, CPython 3.8+ (no syntax or calls newer than 3.8).
"""

import asyncio
import importlib
import multiprocessing
import os
import sys
import tempfile
import threading
import time
from concurrent import futures

try:
    from . import process_tree  # as gillab.runners.task_gilbench, in the kernel
except ImportError:
    import process_tree  # from this folder, in a child (child.py)

try:
    import ctypes

    _set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
    _set_async_exc.argtypes = (ctypes.c_ulong, ctypes.c_void_p)
except (ImportError, AttributeError):  # a build without ctypes: budget checked between jobs
    _set_async_exc = None

# A job that blocks the event loop gets past asyncio's own timeout (as in the kernel).
BLOCKED_LOOP_GRACE_S = 0.25
# How long stopped threads get to see RunOverBudget before the run is given up on.
STOP_GRACE_S = 2.0


class CellError(ValueError):
    """The cell cannot run in this interpreter as written; the message is one line."""


class RunOverBudget(BaseException):
    """Raised in a job still running when --budget is spent (BaseException: `except
    Exception` in a job does not swallow it)."""


class JobError(RuntimeError):
    """A job raised; the message names the job, the mode and the workers."""

    one_line = True  # child.py reports str(error) as the error line

    def __init__(self, message, cause):
        RuntimeError.__init__(self, message)
        self.__cause__ = cause


def cpu_seconds():
    """User+system CPU of this process and its reaped children."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _raise_in(thread_ids, exception_type):
    if _set_async_exc is None:
        return
    for ident in thread_ids:
        _set_async_exc(ident, id(exception_type) if exception_type else None)


class Watchdog:
    """Raises RunOverBudget in `thread_ids` once `deadline` (perf_counter) passes, and again
    every REFIRE_S until disarmed (the next blocking asyncio job is stopped too). disarm()
    stops it and withdraws an exception not yet delivered, so none leaks into later code."""

    REFIRE_S = 0.1

    def __init__(self, deadline, thread_ids):
        self.fired = False
        self._ids = list(thread_ids)
        self._lock = threading.Lock()
        self._disarmed = threading.Event()
        self._thread = threading.Thread(target=self._watch, args=(deadline,), daemon=True)
        self._thread.start()

    def _watch(self, deadline):
        wait = max(0.0, deadline - time.perf_counter())
        while not self._disarmed.wait(wait):
            with self._lock:
                if self._disarmed.is_set():
                    return
                self.fired = True
                _raise_in(self._ids, RunOverBudget)
            wait = self.REFIRE_S

    def disarm(self):
        """Returns whether it fired. Safe against the exception arriving inside it."""
        while True:
            try:
                with self._lock:
                    self._disarmed.set()
                    if self.fired:
                        _raise_in(self._ids, None)
                self._thread.join()
                return self.fired
            except RunOverBudget:
                self.fired = True


def _timed_in_this_thread(watchdog_after_s, body):
    """body(run) in this thread, timed; RunOverBudget from the watchdog marks the run stopped."""
    run = {"results": [], "over_budget": False}
    cpu0 = cpu_seconds()
    start = time.perf_counter()
    watchdog = Watchdog(start + watchdog_after_s, [threading.get_ident()])
    try:
        body(run, start)
    except RunOverBudget:
        run["over_budget"] = True
    run["wall_s"] = time.perf_counter() - start
    run["over_budget"] = watchdog.disarm() or run["over_budget"]
    run["cpu_s"] = cpu_seconds() - cpu0
    return run


def _job_error(mode, workers, index, error):
    where = "job(%d)" % index if index is not None else "a job"
    return JobError("%s raised %s in mode %s with %d workers: %s"
                    % (where, type(error).__name__, mode, workers, error), error)


def run_sequential(job, jobs, budget_s):
    def body(run, start):
        deadline = start + budget_s
        for i in range(jobs):
            try:
                run["results"].append(job(i))
            except RunOverBudget:
                raise
            except BaseException as error:
                raise _job_error("sequential", 1, i, error)
            if time.perf_counter() >= deadline and i + 1 < jobs:
                run["over_budget"] = True
                return
    return _timed_in_this_thread(budget_s, body)


def run_threads(job, jobs, workers, budget_s):
    """`workers` threads, parked at a barrier, take the next job index until none is left."""
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
    cpu0 = cpu_seconds()
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
    cpu = cpu_seconds() - cpu0
    if failures and not over_budget:
        index, error = failures[0]
        raise _job_error("threads", workers, index, error)
    return {"results": results, "wall_s": wall, "cpu_s": cpu, "over_budget": over_budget}


def stop_pool(pool):
    """Kills the pool's workers and whatever they started, then shuts it down."""
    process_tree.kill_trees(list((getattr(pool, "_processes", None) or {}).keys()))
    if sys.version_info >= (3, 9):
        pool.shutdown(wait=True, cancel_futures=True)
    else:
        pool.shutdown(wait=True)


def run_processes(job, jobs, workers, budget_s, start_method, startup_included):
    context = multiprocessing.get_context(start_method or None)
    cpu0 = cpu_seconds()
    start = time.perf_counter()
    pool = futures.ProcessPoolExecutor(max_workers=workers, mp_context=context)
    run = {"results": [], "over_budget": False}
    try:
        if not startup_included:
            futures.wait([pool.submit(os.getpid) for _ in range(workers)])
            start = time.perf_counter()
        submitted = [pool.submit(job, i) for i in range(jobs)]
        done, pending = futures.wait(submitted, timeout=max(0.0, start + budget_s - time.perf_counter()),
                                     return_when=futures.FIRST_EXCEPTION)
        failed = [f for f in done if f.exception() is not None]
        run["wall_s"] = time.perf_counter() - start
        if pending and not failed:
            run["over_budget"] = True
            stop_pool(pool)
            run["cpu_s"] = cpu_seconds() - cpu0
            return run
        for i, f in enumerate(submitted):
            if f.done() and f.exception() is not None:
                error = f.exception()
                message = "job(%d) raised %s in mode processes with %d workers (start method %s): %s" % (
                    i, type(error).__name__, workers, context.get_start_method(), error)
                if type(error).__name__ == "BrokenProcessPool":
                    message += "; a worker process died (os._exit, a signal or a crash) before returning its result"
                raise JobError(message, error)
        run["results"] = [f.result() for f in submitted]
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)
    run["cpu_s"] = cpu_seconds() - cpu0  # the workers are reaped by now
    return run


async def gather_limited(ajob, jobs, workers, budget_s, over_budget=RunOverBudget, wrap_error=None):
    """ajob(0..jobs-1) at most `workers` at a time; over budget_s the tasks are cancelled and
    over_budget is raised. The kernel's asyncio mode runs this too (with its own exception type
    and the job's error unwrapped)."""
    limit = asyncio.Semaphore(workers)

    async def one(i):
        async with limit:
            try:
                return await ajob(i)
            except (over_budget, asyncio.CancelledError):
                raise
            except BaseException as error:
                if wrap_error is None:
                    raise
                raise wrap_error(i, error)

    everything = asyncio.ensure_future(asyncio.gather(*(one(i) for i in range(jobs))))
    done, _ = await asyncio.wait({everything}, timeout=budget_s)
    if not done:
        everything.cancel()
        try:
            await everything
        except asyncio.CancelledError:
            pass
        raise over_budget()
    return everything.result()


def run_asyncio(ajob, jobs, workers, budget_s):
    def body(run, start):
        run["results"] = asyncio.run(gather_limited(
            ajob, jobs, workers, budget_s, wrap_error=lambda i, error: _job_error("asyncio", workers, i, error)))
    return _timed_in_this_thread(budget_s + BLOCKED_LOOP_GRACE_S, body)


def import_cell(folder, name):
    sys.path.insert(0, folder)
    try:
        return importlib.import_module(name)
    except SyntaxError as error:
        raise CellError("the cell is not valid Python %s: %s (line %s)"
                        % (_version(), error.msg, error.lineno))
    except ImportError as error:  # a module the cell imports is not installed for this interpreter
        raise CellError("the cell's imports fail under Python %s: %s" % (_version(), error))


def _version():
    return ".".join(map(str, sys.version_info[:3]))


def run_once(cell, config, request):
    mode, workers, jobs, budget_s = config["mode"], config["workers"], config["jobs"], request["budget_s"]
    if mode == "sequential":
        return run_sequential(cell.job, jobs, budget_s)
    if mode == "threads":
        return run_threads(cell.job, jobs, workers, budget_s)
    if mode == "processes":
        return run_processes(cell.job, jobs, workers, budget_s, request.get("start_method"),
                             request.get("startup_included", True))
    return run_asyncio(cell.ajob, jobs, workers, budget_s)


def _same(a, b):
    try:
        return bool(a == b)
    except Exception:  # e.g. arrays whose == is elementwise
        return False


def _status(config, r, request, index, total):
    """The kernel's progress wording: which configuration, which run."""
    run = ("warm-up %d" % (r + 1) if r < request["warmup"]
           else "run %d/%d" % (r - request["warmup"] + 1, request["repeats"]))
    return "%s x %d workers, %d jobs, %s (configuration %d of %d)" % (
        config["mode"], config["workers"], config["jobs"], run, index + 1, total)


def measure(request, progress=None):
    """request: folder, module, configs [{mode, workers, workers_spec, jobs, base_jobs}], repeats,
    warmup, budget_s, start_method, startup_included, weak_scaling. Returns per configuration
    the measured runs' wall and CPU seconds, whether it was stopped at --budget or skipped,
    and whether its results matched sequential's."""
    cell = import_cell(request["folder"], request["module"])
    # multiprocessing's own temp folders (spawn, forkserver) go inside the cell's folder, which
    # the kernel removes even when it had to kill this process.
    tempfile.tempdir = tempfile.mkdtemp(dir=request["folder"])
    for entry in ("job", "ajob"):
        needed = any((c["mode"] == "asyncio") == (entry == "ajob") for c in request["configs"])
        if needed and not callable(getattr(cell, entry, None)):
            raise CellError("the cell defines no callable %s(i) in this interpreter" % entry)
    reference = {}  # sequential results by --jobs value
    stopped = set()  # (mode, workers spec) that went over --budget
    measured = []
    for index, config in enumerate(request["configs"]):
        figures = {"walls": [], "cpus": [], "over_budget": False, "skipped": False, "results_match": None}
        measured.append(figures)
        if (config["mode"], config["workers_spec"]) in stopped:
            figures["skipped"] = True
            continue
        for r in range(request["warmup"] + request["repeats"]):
            if progress:
                progress(_status(config, r, request, index, len(request["configs"])))
            run = run_once(cell, config, request)
            if run["over_budget"]:
                figures["over_budget"] = True
                stopped.add((config["mode"], config["workers_spec"]))
                break
            if r == request["warmup"]:
                base = config["base_jobs"]
                if base not in reference and config["mode"] == "sequential" and not request.get("weak_scaling"):
                    reference[base] = run["results"]
                    figures["results_match"] = True
                elif base in reference:
                    figures["results_match"] = _same(run["results"], reference[base])
                else:
                    figures["results_match"] = True
            if r >= request["warmup"]:
                figures["walls"].append(run["wall_s"])
                figures["cpus"].append(run["cpu_s"])
    return {"configs": measured, "start_method": multiprocessing.get_start_method(),
            "ctypes_budget": _set_async_exc is not None}
