# a ThreadPoolExecutor of `threads` workers, timed around the with-block
# %% ex1-solution
import threading
import time


from concurrent.futures import ThreadPoolExecutor


def wall_in_threads(job, threads):
    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for _ in range(threads):
            pool.submit(job)
    return time.perf_counter() - began
