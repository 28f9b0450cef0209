# calls the job in a row in the calling thread: nothing overlaps
# %% ex1-solution
import threading
import time


def wall_in_threads(job, threads):
    started = time.perf_counter()
    for _ in range(threads):
        job()
    return time.perf_counter() - started
