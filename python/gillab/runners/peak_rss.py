"""Peak memory of one %%gilbench configuration, measured in a fresh interpreter.

task_gilbench.py calls measure_once() after a configuration's timed runs, in the kernel and in a
child interpreter alike: it runs this file under the same interpreter (sys.executable, inside the
child's sandbox when there is one) as
`PYTHON peak_rss.py FOLDER MODULE MODE WORKERS JOBS START_METHOD`, which imports the cell's
module from FOLDER, runs its jobs once the way MODE does (a plain ThreadPoolExecutor /
ProcessPoolExecutor / asyncio.gather with a semaphore, as a student would write it), and prints
one JSON line with its peak resident set (VmHWM) and, for processes, the largest worker's.
Standard library only, CPython 3.8+.
"""

import asyncio
import importlib
import json
import os
import resource
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor


def measure_once(folder, module_name, config, start_method, timeout):
    """{peak_rss_bytes, largest_child_rss_bytes} of one run of `config` (mode, workers, jobs),
    or {problem: why there is no figure}. subprocess.run kills the run on any exception,
    KeyboardInterrupt included."""
    command = [sys.executable, os.path.abspath(__file__), folder, module_name, config["mode"],
               str(config["workers"]), str(config["jobs"]), start_method or ""]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return {"problem": "memory run over --budget"}
    lines = done.stdout.strip().splitlines()
    if done.returncode == 0 and lines:
        return json.loads(lines[-1])
    tail = (done.stderr.strip().splitlines() or ["exit code %d" % done.returncode])[-1]
    return {"problem": "memory run failed: " + tail}


def peak_rss_bytes():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux


async def under_asyncio(ajob, jobs, workers):
    limit = asyncio.Semaphore(workers)

    async def one(i):
        async with limit:
            return await ajob(i)

    return await asyncio.gather(*(one(i) for i in range(jobs)))


def main(folder, module_name, mode, workers, jobs, start_method):
    workers, jobs = int(workers), int(jobs)
    sys.path.insert(0, folder)
    cell = importlib.import_module(module_name)
    if mode == "sequential":
        [cell.job(i) for i in range(jobs)]
    elif mode == "threads":
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(cell.job, range(jobs)))
    elif mode == "processes":
        import multiprocessing
        context = multiprocessing.get_context(start_method or None)
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            list(pool.map(cell.job, range(jobs)))
    else:
        asyncio.run(under_asyncio(cell.ajob, jobs, workers))
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    print(json.dumps({"peak_rss_bytes": peak_rss_bytes(), "largest_child_rss_bytes": children}))


if __name__ == "__main__":
    main(*sys.argv[1:])
