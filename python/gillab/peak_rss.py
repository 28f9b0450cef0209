"""Peak memory of one %%gilbench configuration, measured in a fresh interpreter.

The magic calls run_in_fresh_interpreter(), which runs this file as
`PYTHON peak_rss.py FOLDER MODULE MODE WORKERS JOBS START_METHOD`: it imports the
cell's module from FOLDER, runs its jobs once the way MODE does (a plain
ThreadPoolExecutor / ProcessPoolExecutor / asyncio.gather with a semaphore, as a
student would write it), and prints one JSON line with this process's peak
resident set (VmHWM) and, for processes, the largest worker's. As a script it
runs under any CPython 3.8+ that --python names.
"""

import asyncio
import importlib
import json
import os
import resource
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor


def run_in_fresh_interpreter(executable, folder, module_name, mode, workers, jobs, start_method, timeout):
    """(figures, "") or (None, why there are none). `executable`: empty for this interpreter.
    subprocess.run kills the child on any exception, KeyboardInterrupt included."""
    import _gillab  # in the kernel only: how --python starts `executable` (bubblewrap for Debian unstable's)
    here = os.path.dirname(os.path.abspath(__file__))
    command = [*_gillab.interpreter_command(executable or sys.executable, [folder, here]), os.path.abspath(__file__),
               folder, module_name, mode, str(workers), str(jobs), start_method]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return None, "memory run over --budget"
    lines = done.stdout.strip().splitlines()
    if done.returncode == 0 and lines:
        return json.loads(lines[-1]), ""
    tail = (done.stderr.strip().splitlines() or ["exit code %d" % done.returncode])[-1]
    return None, "memory run failed: " + tail


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
