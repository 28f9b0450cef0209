"""Plain references for %%gilbench: the simplest script of each design, timed with
time.perf_counter around the pool's whole life (`with` block), as a reader of the published
benchmarks would write it. Jobs live in jobs.py, so spawned workers can import them.
MODE processes-apart starts every worker before the clock (as --startup apart).
Standard library only; `python3 pools.py MODE JOB WORKERS JOBS [START_METHOD]` prints seconds.
"""

import asyncio
import multiprocessing
import sys
import time
# Imported here, not resolved inside a clock: concurrent.futures loads its pools' modules on
# first use, and the process pool's (multiprocessing.connection and all it needs) is ~10 ms.
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import jobs as job_module


def sequential(job, jobs):
    start = time.perf_counter()
    for i in range(jobs):
        job(i)
    return time.perf_counter() - start


def threads(job, jobs, workers):
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(job, range(jobs)))
    return time.perf_counter() - start


def processes(job, jobs, workers, start_method):
    context = multiprocessing.get_context(start_method)
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        list(pool.map(job, range(jobs)))
    return time.perf_counter() - start


_barrier = None


def _keep(barrier):  # each worker's initializer
    global _barrier
    _barrier = barrier


def _arrive(_):
    _barrier.wait()


def _pool_all_up(workers, start_method):
    """A pool whose workers all started: each of N tasks waits at a barrier until N workers hold
    one (N tiny tasks alone may all be answered by the first worker up)."""
    context = multiprocessing.get_context(start_method)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_keep,
                               initargs=(context.Barrier(workers),))
    list(pool.map(_arrive, range(workers)))
    return pool


def processes_apart(job, jobs, workers, start_method):
    """The pool's start-up outside the clock: timed from all workers up to the last result."""
    with _pool_all_up(workers, start_method) as pool:
        start = time.perf_counter()
        list(pool.map(job, range(jobs)))
        return time.perf_counter() - start


def gathered(ajob, jobs):
    async def main():
        await asyncio.gather(*(ajob(i) for i in range(jobs)))
    start = time.perf_counter()
    asyncio.run(main())
    return time.perf_counter() - start


def wall_s(mode, job_name, workers, jobs, start_method="fork"):
    if mode == "asyncio":
        return gathered(getattr(job_module, job_name), jobs)
    job = getattr(job_module, job_name)
    if mode == "sequential":
        return sequential(job, jobs)
    if mode == "threads":
        return threads(job, jobs, workers)
    return {"processes": processes, "processes-apart": processes_apart}[mode](
        job, jobs, workers, start_method)


if __name__ == "__main__":
    mode, job_name, workers, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    print(wall_s(mode, job_name, workers, jobs, *sys.argv[5:]))
