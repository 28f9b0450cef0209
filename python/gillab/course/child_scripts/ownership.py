"""Biased reference counting seen from outside: a worker thread walking rows that the main
thread allocated against rows it allocated itself, then one and two workers walking the
same rows at once. N steps each, the variants interleaved, best of three."""

import json
import sys
import threading
import time

from thread_timing import run_threads


def rows(marker):
    return [[marker, k, float(k)] for k in range(1000)]


def walk(table, steps):
    seen, width = 0, len(table)
    for step in range(steps):
        seen += len(table[step % width])  # one incref and one decref of a row per step
    return seen


def timed_in_a_worker(task):
    took = []

    def timed():
        start = time.perf_counter()
        task()
        took.append(time.perf_counter() - start)

    worker = threading.Thread(target=timed)
    worker.start()
    worker.join()
    return took[0]


def workers_at_once(count, table, steps):
    return run_threads([threading.Thread(target=walk, args=(table, steps)) for _ in range(count)])  # wall, cores


steps = int(sys.argv[1])
# Allocated here, on the main thread: in a free-threaded build this thread owns their reference
# counts, so a worker must update them with atomic instructions.
mains_rows = rows("main")
others, owned, alone, paired = [], [], [], []
for _ in range(3):  # interleaved, so a busy moment of the machine falls on every variant alike
    others.append(timed_in_a_worker(lambda: walk(mains_rows, steps)))
    owned.append(timed_in_a_worker(lambda: walk(rows("worker"), steps)))  # building 1000 rows is negligible
    alone.append(workers_at_once(1, mains_rows, steps))
    paired.append(workers_at_once(2, mains_rows, steps))
(one_s, _), (two_s, two_cores) = min(alone), min(paired)
print(json.dumps({"foreign_s": min(others), "own_s": min(owned), "one_s": one_s, "two_s": two_s, "two_cores": two_cores,
                  "foreign_extra": min(others) / min(owned) - 1, "shared_speedup": 2 * one_s / two_s}))
