"""Shared by the child scripts (their folder is sys.path[0] when they run): start threads,
wait for them, and return the wall time and the cores they kept busy."""

import time


def run_threads(threads):
    """Start and join `threads`; (wall seconds, CPU seconds of the process / wall seconds)."""
    start, cpu = time.perf_counter(), time.process_time()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - start
    return elapsed, (time.process_time() - cpu) / elapsed
