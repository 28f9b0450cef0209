"""Plain reference for %%race: N `threading.Thread`s each repeat `counter = one_more(counter)`
M times on one module-level counter. They start, wait at a threading.Barrier until all are up,
and are released together (so each run races N threads from its first repetition, and thread
start-up is not timed): time.perf_counter from the release to the last thread done. Lost =
N*M - counter. The locked variant wraps each repetition in `with lock:`. Like the magic's summary,
a figure is the median over RUNS runs: one run's lost share lands anywhere from none to most,
depending on where each forced switch falls. Standard library only;
`python3 race.py THREADS ITERATIONS [lock]` prints lost and seconds of one run.
"""

import statistics
import sys
import threading
import time

counter = 0


def one_more(value):
    return value + 1


def _unlocked(n, lock):
    global counter
    for _ in range(n):
        counter = one_more(counter)


def _locked(n, lock):
    global counter
    for _ in range(n):
        with lock:
            counter = one_more(counter)


def race(threads, iterations, locked=False):
    """(updates lost, wall seconds) of one run."""
    global counter
    counter = 0
    lock = threading.Lock()
    start_line = threading.Barrier(threads + 1)
    done = []

    def worker(repeat):
        start_line.wait()
        repeat(iterations, lock)
        done.append(time.perf_counter())

    workers = [threading.Thread(target=worker, args=(_locked if locked else _unlocked,)) for _ in range(threads)]
    for thread in workers:
        thread.start()
    start_line.wait()
    start = time.perf_counter()
    for thread in workers:
        thread.join()
    return threads * iterations - counter, max(done) - start


def lost_percent(threads, iterations, runs=1):
    """Median share of the updates lost over `runs` runs, in %."""
    return statistics.median(100.0 * race(threads, iterations)[0] / (threads * iterations) for _ in range(runs))


def lock_cost(threads, iterations, runs=1):
    """The locked runs' median wall time over the unlocked runs', as %%race's cost column."""
    unlocked = statistics.median(race(threads, iterations)[1] for _ in range(runs))
    return statistics.median(race(threads, iterations, locked=True)[1] for _ in range(runs)) / unlocked


if __name__ == "__main__":
    print(*race(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:] == ["lock"]))
