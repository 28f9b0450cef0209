# reads the clock after the starts, before the joins: the jobs are still running
# %% ex1-solution
import threading
import time


def wall_in_threads(job, threads):
    crowd = [threading.Thread(target=job) for _ in range(threads)]
    started = time.perf_counter()
    for member in crowd:
        member.start()
    ended = time.perf_counter()
    for member in crowd:
        member.join()
    return ended - started
