"""Two tight single-threaded loops, N times each, best of three: bare integer additions, and a
call that reads an attribute. Prints {"additions": s, "calls": s}."""

import json
import sys
import time


def additions(count):
    running = 0
    for step in range(count):
        running += step
    return running


class Box:
    def __init__(self, size):
        self.size = size


def grow(box):
    return box.size + 1


def calls(n):
    box, total = Box(1), 0
    for _ in range(n):
        total += grow(box)
    return total


n = int(sys.argv[1])
best = {}
for _ in range(3):
    for loop in (additions, calls):
        start = time.perf_counter()
        loop(n)
        best[loop.__name__] = min(best.get(loop.__name__, float("inf")), time.perf_counter() - start)
print(json.dumps(best))
