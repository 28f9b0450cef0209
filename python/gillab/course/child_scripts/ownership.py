"""Biased reference counting seen from outside: one worker thread reading a list another
thread made against one it made itself, then one and two threads reading the same list.
N reads each, interleaved best of three."""

import json
import sys
import threading
import time

from thread_timing import run_threads


def make(tag):
    return [[tag, i, float(i)] for i in range(1000)]


def read(items, n):
    total, size = 0, len(items)
    for j in range(n):
        total += len(items[j % size])  # takes and drops a reference to an inner list
    return total


def in_a_thread(work):
    took = []

    def timed():
        start = time.perf_counter()
        work()
        took.append(time.perf_counter() - start)

    worker = threading.Thread(target=timed)
    worker.start()
    worker.join()
    return took[0]


def together(threads, items, n):
    return run_threads([threading.Thread(target=read, args=(items, n)) for _ in range(threads)])  # wall, cores


n = int(sys.argv[1])
MAIN_MADE = make(0)  # created by the main thread: the worker threads do not own these
foreign, own, one, two = [], [], [], []
for _ in range(3):  # interleaved: a busy moment on the machine hits every variant
    foreign.append(in_a_thread(lambda: read(MAIN_MADE, n)))
    own.append(in_a_thread(lambda: read(make(1), n)))  # the worker makes its own list (1000 items: negligible)
    one.append(together(1, MAIN_MADE, n))
    two.append(together(2, MAIN_MADE, n))
(one_s, _), (two_s, two_cores) = min(one), min(two)
print(json.dumps({"foreign_s": min(foreign), "own_s": min(own), "one_s": one_s, "two_s": two_s, "two_cores": two_cores,
                  "foreign_extra": min(foreign) / min(own) - 1, "shared_speedup": 2 * one_s / two_s}))
