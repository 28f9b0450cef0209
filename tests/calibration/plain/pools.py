"""Plain references for %%gilbench: the simplest script of each design, timed with
time.perf_counter around the pool's whole life (`with` block), as a reader of the published
benchmarks would write it. Jobs live in jobs.py, so spawned workers can import them.
Standard library only; `python3 pools.py MODE JOB WORKERS JOBS [START_METHOD]` prints seconds.
"""

import asyncio
import multiprocessing
import sys
import time
from concurrent import futures

import jobs as job_module


def sequential(job, jobs):
    start = time.perf_counter()
    for i in range(jobs):
        job(i)
    return time.perf_counter() - start


def threads(job, jobs, workers):
    start = time.perf_counter()
    with futures.ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(job, range(jobs)))
    return time.perf_counter() - start


def processes(job, jobs, workers, start_method):
    context = multiprocessing.get_context(start_method)
    start = time.perf_counter()
    with futures.ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
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
    return processes(job, jobs, workers, start_method)


if __name__ == "__main__":
    mode, job_name, workers, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    print(wall_s(mode, job_name, workers, jobs, *sys.argv[5:]))
