"""%%gilbench's measuring loop: the one the kernel runs and the one a child interpreter runs.

The kernel plans the configurations (mode, workers, jobs), writes the cell as a module
(magics/framework/cell_module) and calls measure(request, progress, tools), handing over its native
tools (magics/framework/runner): the budget watchdog and its RunOverBudget type
(magics/instruments/budget), and a way to run processes configurations in a fresh interpreter.
A child interpreter (--python, child.py) calls measure(request, progress): PYTHON_TOOLS stand in
for the native ones. Either way this loop times each configuration --warmup + --repeats times
and returns the raw figures (wall and CPU seconds per run, budget stops, whether the results
matched sequential's), which the kernel turns into medians, spreads, speed-ups and flags.
Each mode is the plain script of its design, timed around the pool's whole life:
  * sequential: a loop over the jobs in this thread, timed around the loop;
  * threads: a concurrent.futures.ThreadPoolExecutor of N workers mapping
    the jobs (its threads start one by one as jobs are handed out, inside the clock); over
    --budget the running jobs get RunOverBudget (PyThreadState_SetAsyncExc through ctypes) and
    the others are cancelled;
  * processes: the kernel does not start pools itself. Each run of consecutive processes
    configurations goes to a fresh process of the kernel's own interpreter (runners/child.py,
    through tools.in_fresh_interpreter), which runs this loop on them and forks its workers
    from itself: a fork copies its parent's page tables, so a pool forked from the kernel
    would pay for the notebook's memory (charts, data) in every start-up, where a script pays
    for its own. The kernel's sequential results go with them (pickled), for the results check;
  * asyncio: asyncio.run of the jobs gathered, at most N at a time.
Every clock is read around the measured code only: the watchdog is armed before the clock
starts and disarmed after it stops. Standard library only, CPython 3.8+ (no newer syntax).
"""

import asyncio
import base64
import importlib
import os
import pickle
import sys
import tempfile
import threading
import time
import traceback
from concurrent import futures

try:
    from . import peak_rss, process_tree, start_method as start_methods  # as gillab.runners.task_gilbench, in the kernel
    from .python_tools import PYTHON_TOOLS, RunOverBudget, set_async_exc
    from .cell_error import CellError
    from .student_code import students_frames
except ImportError:
    import peak_rss  # from this folder, in a child (child.py)
    import process_tree
    import start_method as start_methods
    from python_tools import PYTHON_TOOLS, RunOverBudget, set_async_exc
    from cell_error import CellError
    from student_code import students_frames

try:
    import resource
except ImportError:  # not a Unix: os.times() below
    resource = None

# A job that blocks the event loop gets past asyncio's own timeout.
BLOCKED_LOOP_GRACE_S = 0.25
# How often a pool run wakes to let the stop button in (SIGINT) while it waits.
PROCESS_WAIT_SLICE_S = 0.05
# Longest a pool's workers wait for each other to be up (--startup apart): a worker that never
# comes up must not hold the run for ever; the run then times with the others up.
STARTUP_WAIT_S = 120.0
# A stopped thread run: how long its jobs get to see the exception, and how often it is raised again.
THREAD_STOP_GRACE_S = 2.0
STOP_REFIRE_S = 0.05

MAIN_TRAP_HELP = (
    "A process worker could not find a name in __main__. Functions defined in notebook cells "
    "live in the kernel's __main__, which %%gilbench's process workers do not have: their pool "
    "starts from a fresh interpreter, whatever the start method. Define everything the job uses "
    "inside the %%gilbench cell (it becomes an importable module), or move it to a .py file and "
    "import it.")


# What a worker says when a job needs the notebook's __main__: unpickling a function defined
# there, or reaching into it (a spawned worker's main module is __mp_main__, a forked one's __main__).
MAIN_TRAPS = ("Can't get attribute", "module '__main__' has no attribute", "module '__mp_main__' has no attribute")


class JobError(RuntimeError):
    """A job raised; the message names the job, the mode and the workers."""

    one_line = True  # child.py reports str(error) as the error line

    def __init__(self, message, cause=None):
        RuntimeError.__init__(self, message)
        self.__cause__ = cause


if resource is not None:
    def cpu_seconds():
        """User+system CPU of this process and its reaped children (getrusage: microseconds,
        where os.times() counts clock ticks of 10 ms)."""
        me = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime
else:
    def cpu_seconds():
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system


def _count(n, word):
    return "{:,} {}{}".format(n, word, "" if n == 1 else "s")


# ---- one run of one configuration ------------------------------------------------------

def _job_error(mode, workers, index, error):
    where = "job(%d)" % index if index is not None else "a job"
    return JobError("%s raised %s in mode %s with %s: %s"
                    % (where, type(error).__name__, mode, _count(workers, "worker"), error), error)


def _job_failure(mode, workers, index, error):
    """The JobError for a job that raised, the job's own traceback under the one-line message."""
    text = "".join(traceback.format_exception(type(error), error, students_frames(error.__traceback__)))
    return JobError("%s\n%s" % (_job_error(mode, workers, index, error), text), error)


def _timed_in_this_thread(tools, watchdog_after_s, body):
    """body(run, start) in this thread, timed; the watchdog raises RunOverBudget in this
    thread once `watchdog_after_s` have passed, which marks the run stopped. It is armed before
    the clock starts and stopped, by one native call, as the run ends: the wall time holds the
    body and nothing else of the machinery."""
    run = {"results": [], "over_budget": False}
    over_budget = tools.RunOverBudget
    watchdog = tools.watchdog(watchdog_after_s, [threading.get_ident()])
    try:
        cpu0 = cpu_seconds()
        start = time.perf_counter()
        try:
            body(run, start)
            watchdog.stop()  # an exception raised just before arrives here, inside the try
        except over_budget:
            watchdog.stop()
            run["over_budget"] = True
        run["wall_s"] = time.perf_counter() - start
    finally:  # an interrupt too: a watchdog left armed would hit a later cell
        watchdog.stop()
        watchdog.disarm()
    run["cpu_s"] = cpu_seconds() - cpu0
    return run


class _Busy:
    """Which pool thread runs which job, for stopping them: an exception is raised only in a
    thread inside a job, under the lock the job leaves through, so it lands in the job's frame
    (and its future), never in the pool's own code."""

    def __init__(self, job):
        self.lock = threading.Lock()
        self.running = {}
        self.job = job

    def run(self, i):
        me = threading.get_ident()
        with self.lock:
            self.running[me] = i
        try:
            return self.job(i)
        finally:
            with self.lock:
                del self.running[me]

    def raise_in_all(self, exception):
        with self.lock:
            if set_async_exc is not None:
                for ident in self.running:
                    set_async_exc(ident, id(exception))
            return len(self.running)


def _stop_pool_threads(pool, submitted, busy, exception):
    """No more jobs start; those running get `exception` (again every STOP_REFIRE_S, as a job
    may catch it) until none runs or THREAD_STOP_GRACE_S pass. Returns how many were left
    running, in a C call (a sleep): they end when it returns."""
    for f in submitted:  # shutdown's cancel_futures is 3.9+
        f.cancel()
    pool.shutdown(wait=False)
    deadline = time.perf_counter() + THREAD_STOP_GRACE_S
    while busy.raise_in_all(exception) and time.perf_counter() < deadline:
        time.sleep(STOP_REFIRE_S)
    left = busy.raise_in_all(exception)
    if not left:
        pool.shutdown(wait=True)
    return left


def _first_failure(submitted, deadline):
    """Waits for the futures in order, as Executor.map does. Returns (index, exception) of the
    first that raised, None when all returned, or "over budget" once `deadline` passes."""
    for i, f in enumerate(submitted):
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                return "over budget"
            try:
                error = f.exception(timeout=min(PROCESS_WAIT_SLICE_S, left))
            except futures.TimeoutError:
                continue
            if error is not None:
                return i, error
            break
    return None


def run_sequential(tools, job, jobs, budget_s):
    """The jobs one after another in this thread: in the kernel its main thread, where a job may
    set signal handlers and the interrupt stops even a job asleep in C. Over budget: checked
    between jobs, and the watchdog raises RunOverBudget inside a long one."""
    def body(run, start):
        deadline = start + budget_s
        i = 0
        try:
            for i in range(jobs):
                run["results"].append(job(i))
                if time.perf_counter() >= deadline and i + 1 < jobs:
                    run["over_budget"] = True
                    return
        except (tools.RunOverBudget, KeyboardInterrupt):
            raise
        except BaseException as error:
            raise _job_failure("sequential", 1, i, error)
    return _timed_in_this_thread(tools, budget_s, body)


def run_threads(tools, job, jobs, workers, budget_s):
    """A concurrent.futures.ThreadPoolExecutor, timed as the plain script `with
    ThreadPoolExecutor(workers) as pool: list(pool.map(job, range(jobs)))` is: its threads
    start one by one as jobs are handed out, inside the clock, and the clock stops once the
    pool has shut down. Over budget or interrupted, running jobs get
    RunOverBudget (or KeyboardInterrupt) and the rest are cancelled."""
    busy = _Busy(job)
    cpu0 = cpu_seconds()
    start = time.perf_counter()
    deadline = start + budget_s
    pool = futures.ThreadPoolExecutor(max_workers=workers)
    run = {"results": [], "over_budget": False}
    submitted = []
    try:
        for i in range(jobs):
            if time.perf_counter() >= deadline:
                break
            submitted.append(pool.submit(busy.run, i))
        failure = _first_failure(submitted, deadline) if len(submitted) == jobs else "over budget"
        if failure == "over budget" or (failure and isinstance(failure[1], tools.RunOverBudget)):
            run["over_budget"] = True
            _stop_pool_threads(pool, submitted, busy, tools.RunOverBudget)
        elif failure is not None:
            _stop_pool_threads(pool, submitted, busy, tools.RunOverBudget)
            index, error = failure
            raise _job_failure("threads", workers, index, error)
        else:
            pool.shutdown(wait=True)
            run["wall_s"] = time.perf_counter() - start
            run["results"] = [f.result() for f in submitted]
    except BaseException as error:
        if not isinstance(error, JobError):
            left = _stop_pool_threads(pool, submitted, busy, KeyboardInterrupt)
            if left and isinstance(error, KeyboardInterrupt):
                raise KeyboardInterrupt("%s blocked in a C call (a sleep, a read) %s to finish it; %s when it returns"
                                        % (_count(left, "worker thread"), "was left" if left == 1 else "were left",
                                           "it stops" if left == 1 else "they stop"))
        raise
    run.setdefault("wall_s", time.perf_counter() - start)
    run["cpu_s"] = cpu_seconds() - cpu0
    return run


def stop_pool(pool):
    """Kills the pool's workers and whatever they started, then shuts it down."""
    process_tree.kill_trees(list((getattr(pool, "_processes", None) or {}).keys()))
    if sys.version_info >= (3, 9):
        pool.shutdown(wait=True, cancel_futures=True)
    else:
        pool.shutdown(wait=True)


def _process_error(index, error, workers, context):
    text = str(error)
    message = "job(%d) raised %s in mode processes with %s (start method %s): %s" % (
        index, type(error).__name__, _count(workers, "worker"), context.get_start_method(), text)
    if any(trap in text for trap in MAIN_TRAPS):
        message += "\n" + MAIN_TRAP_HELP
    if type(error).__name__ == "BrokenProcessPool":
        message += "\nA worker process died (os._exit, a signal or a crash) before returning its result."
    return JobError(message, error)


_all_up = None  # in a pool's worker: the barrier its pool's workers meet at (startup apart)


def _meet_at(barrier):
    global _all_up
    _all_up = barrier


def _wait_for_all_workers(_):
    _all_up.wait(STARTUP_WAIT_S)


def _start_all_workers(pool, workers):
    """Returns once every worker is up: one task per worker, each held at a barrier until all
    are. One tiny task per worker is not enough: the first worker up may answer them all while
    the others still start (seen with spawn), inside the clock."""
    futures.wait([pool.submit(_wait_for_all_workers, k) for k in range(workers)])


def run_processes(job, jobs, workers, budget_s, start_method, startup_included):
    """A ProcessPoolExecutor timed over its whole life, creation to shutdown (the shutdown
    waits for workers still starting), or with startup_included false from all its workers up
    to the last result. Over budget or interrupted, the workers (and what they started) are
    killed at once."""
    context = start_methods.context(start_method)
    cpu0 = cpu_seconds()
    start = time.perf_counter()
    apart = {} if startup_included else {"initializer": _meet_at, "initargs": (context.Barrier(workers),)}
    pool = futures.ProcessPoolExecutor(max_workers=workers, mp_context=context, **apart)
    run = {"results": [], "over_budget": False}
    try:
        if not startup_included:  # every worker started and idle before the clock starts
            _start_all_workers(pool, workers)
            start = time.perf_counter()
        submitted = [pool.submit(job, i) for i in range(jobs)]
        deadline = start + budget_s
        pending = submitted
        failed = False
        # Waits in short slices (it returns at the last completion, not at a slice's end).
        while pending and not failed:
            left = deadline - time.perf_counter()
            if left <= 0:
                break
            done, pending = futures.wait(pending, timeout=min(PROCESS_WAIT_SLICE_S, left),
                                         return_when=futures.FIRST_EXCEPTION)
            failed = any(f.exception() is not None for f in done)
        run["wall_s"] = time.perf_counter() - start
        if pending and not failed:
            run["over_budget"] = True
            stop_pool(pool)
            run["cpu_s"] = cpu_seconds() - cpu0
            return run
        for i, f in enumerate(submitted):
            if f.done() and f.exception() is not None:
                raise _process_error(i, f.exception(), workers, context)
        run["results"] = [f.result() for f in submitted]
    except BaseException:
        stop_pool(pool)
        raise
    pool.shutdown(wait=True)
    if startup_included:  # the pool's whole life, as a script's `with ProcessPoolExecutor()` block
        run["wall_s"] = time.perf_counter() - start
    run["cpu_s"] = cpu_seconds() - cpu0  # the workers are reaped by now
    return run


async def gather_limited(ajob, jobs, workers, budget_s, over_budget=RunOverBudget, wrap_error=None):
    """ajob(0..jobs-1) at most `workers` at a time; over budget_s the tasks are cancelled and
    over_budget is raised. With a worker per job nothing is limited, so the tasks are gathered
    bare, as a plain `asyncio.gather` script does: a semaphore and a wrapper coroutine per task
    would be timed too. A job's error is wrapped afterwards, found by its task."""
    if workers >= jobs:
        tasks = [asyncio.ensure_future(ajob(i)) for i in range(jobs)]
    else:
        limit = asyncio.Semaphore(workers)

        async def one(i):
            async with limit:
                return await ajob(i)

        tasks = [asyncio.ensure_future(one(i)) for i in range(jobs)]
    everything = asyncio.gather(*tasks)
    done, _ = await asyncio.wait({everything}, timeout=budget_s)
    if not done:
        everything.cancel()
        try:
            await everything
        except asyncio.CancelledError:
            pass
        raise over_budget()
    try:
        return everything.result()
    except (over_budget, asyncio.CancelledError, KeyboardInterrupt):
        raise
    except BaseException as error:
        if wrap_error is None:
            raise
        failed = next((i for i, t in enumerate(tasks) if t.done() and not t.cancelled() and t.exception() is error), None)
        raise wrap_error(failed, error)


def run_asyncio(tools, ajob, jobs, workers, budget_s):
    """All jobs under one event loop. Over budget: the tasks are cancelled; a job that blocks
    the loop gets RunOverBudget from the watchdog a little later instead."""
    def body(run, start):
        run["results"] = asyncio.run(gather_limited(
            ajob, jobs, workers, budget_s, tools.RunOverBudget,
            wrap_error=lambda i, error: _job_error("asyncio", workers, i, error)))
    return _timed_in_this_thread(tools, budget_s + BLOCKED_LOOP_GRACE_S, body)


def run_once(tools, cell, config, request):
    mode, workers, jobs, budget_s = config["mode"], config["workers"], config["jobs"], request["budget_s"]
    if mode == "sequential":
        return run_sequential(tools, cell.job, jobs, budget_s)
    if mode == "threads":
        return run_threads(tools, cell.job, jobs, workers, budget_s)
    if mode == "processes":
        return run_processes(cell.job, jobs, workers, budget_s, request.get("start_method"),
                             request.get("startup_included", True))
    return run_asyncio(tools, cell.ajob, jobs, workers, budget_s)


# ---- every configuration --------------------------------------------------------------

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


def _same(a, b):
    try:
        return bool(a == b)
    except Exception:  # e.g. arrays whose == is elementwise
        return False


def status_line(config, what, index, total):
    """The progress wording: which configuration, which run (or the memory run). `index` counts
    from 0 in the magic's whole plan (a part measured elsewhere carries its own "number")."""
    return "%s x %s, %s, %s (configuration %d of %d)" % (
        config["mode"], _count(config["workers"], "worker"), _count(config["jobs"], "job"), what,
        config.get("number", index) + 1, total)


def _run_text(r, request):
    if r < request["warmup"]:
        return "warm-up %d" % (r + 1)
    return "run %d/%d" % (r - request["warmup"] + 1, request["repeats"])


def measure(request, progress=None, tools=None):
    """request: folder, module, configs [{mode, workers, workers_spec, jobs, base_jobs}], repeats,
    warmup, budget_s, start_method, startup_included, weak_scaling, memory; from the kernel to a child
    also total, each config's number in the whole plan and reference, the kernel's sequential
    results. tools: the kernel's native ones (threads, watchdog, RunOverBudget, in_fresh_interpreter),
    which also means the kernel has imported the cell already; None in a child. Returns per
    configuration the measured runs' wall and CPU seconds, whether it was stopped at --budget or
    skipped, whether its results matched sequential's (None: nothing to compare with) and, with
    `memory`, its peak memory in a fresh interpreter; and the start method the pools used."""
    in_kernel = tools is not None
    if not in_kernel:
        tools = PYTHON_TOOLS
        cell = import_cell(request["folder"], request["module"])
        # multiprocessing's own temp folders (spawn, forkserver) go inside the cell's folder,
        # which the kernel removes even when it had to kill this process.
        tempfile.tempdir = tempfile.mkdtemp(dir=request["folder"])
    else:
        cell = sys.modules[request["module"]]
    for entry in ("job", "ajob"):
        needed = any((c["mode"] == "asyncio") == (entry == "ajob") for c in request["configs"])
        if needed and not callable(getattr(cell, entry, None)):
            raise CellError("the cell defines no callable %s(i) in this interpreter" % entry)
    reference = _unpickled(request.get("reference"))  # sequential results by --jobs value
    stopped = set()  # (mode, workers spec) that went over --budget
    measured = []
    configs = request["configs"]
    total = request.get("total", len(configs))
    with start_methods.left_unchosen():
        for index, config in enumerate(configs):
            if index < len(measured):  # measured already, with the pools before it
                continue
            # Larger --jobs after a stopped run would only be stopped again.
            if (config["mode"], config["workers_spec"]) in stopped:
                measured.append(_figures(skipped=True))
                continue
            if config["mode"] == "processes" and in_kernel:
                part = _pools_in_fresh_interpreter(tools, request, index, reference, stopped, progress)
                measured.extend(part)
                continue
            figures = _figures()
            measured.append(figures)
            for r in range(request["warmup"] + request["repeats"]):
                if progress:
                    progress(status_line(config, _run_text(r, request), index, total))
                run = run_once(tools, cell, config, request)
                if run["over_budget"]:
                    figures["over_budget"] = True
                    stopped.add((config["mode"], config["workers_spec"]))
                    break
                if r == request["warmup"]:
                    base = config["base_jobs"]
                    if base not in reference and config["mode"] == "sequential" and not request.get("weak_scaling"):
                        reference[base] = run["results"]
                    elif base in reference:
                        figures["results_match"] = _same(run["results"], reference[base])
                if r >= request["warmup"]:
                    figures["walls"].append(run["wall_s"])
                    figures["cpus"].append(run["cpu_s"])
    if request.get("memory"):
        _peak_memory(request, measured, progress, total)
    return {"configs": measured, "start_method": start_methods.current(),
            "ctypes_budget": in_kernel or set_async_exc is not None}


def _figures(skipped=False):
    return {"walls": [], "cpus": [], "over_budget": False, "skipped": skipped, "results_match": None}


def _peak_memory(request, measured, progress, total):
    """Each configuration run once more in a fresh interpreter (peak_rss.py), so neither this
    process's own memory nor earlier runs hide its peak. A run stopped at --budget still gets
    one: the plain pool there may be quicker (10,000 one-per-job threads)."""
    for index, (config, figures) in enumerate(zip(request["configs"], measured)):
        if figures["skipped"]:
            continue
        if progress:
            progress(status_line(config, "peak memory in a fresh process", index, total))
        timeout_s = request["budget_s"] + (5.0 if figures["over_budget"] else 30.0)
        figures["memory"] = peak_rss.measure_once(request["folder"], request["module"], config,
                                                  request.get("start_method"), timeout_s)


def _pools_in_fresh_interpreter(tools, request, index, reference, stopped, progress):
    """The processes configurations from `index` on, up to the next other mode, measured by a
    fresh process of this interpreter; returns their figures. Those stopped at --budget are
    added to `stopped`."""
    configs = request["configs"]
    end = index
    while end < len(configs) and configs[end]["mode"] == "processes":
        end += 1
    part = dict(request, memory=False, configs=[dict(c, number=n) for n, c in enumerate(configs[index:end], index)],
                total=request.get("total", len(configs)), reference=_pickled(reference))
    answer = tools.in_fresh_interpreter(part, progress or (lambda status: None))
    for config, figures in zip(configs[index:end], answer["configs"]):
        if figures["over_budget"]:
            stopped.add((config["mode"], config["workers_spec"]))
    return answer["configs"]


def _pickled(reference):
    """{jobs: results} as text for a request; results that do not pickle stay behind (their
    configurations then have nothing to compare with)."""
    out = {}
    for base, results in reference.items():
        try:
            out[str(base)] = base64.b64encode(pickle.dumps(results)).decode("ascii")
        except Exception:
            pass
    return out


def _unpickled(reference):
    out = {}
    for base, text in (reference or {}).items():
        try:
            out[int(base)] = pickle.loads(base64.b64decode(text))
        except Exception:  # a result type this interpreter cannot rebuild: nothing to compare with
            pass
    return out
