"""Two threads of pure-Python additions against one, best of three, interleaved: the
interpreter's version, whether its GIL is on, and the speed-up (run it with PYTHON_GIL=1)."""

import json
import sys
import threading

from thread_timing import run_threads


def job(i):
    total = 0
    for k in range(1_000_000):
        total += k
    return total


def wall(threads):
    return run_threads([threading.Thread(target=job, args=(i,)) for i in range(threads)])


ones, twos = [], []
for _ in range(3):
    ones.append(wall(1))
    twos.append(wall(2))
(one, one_cores), (two, two_cores) = min(ones), min(twos)
print(json.dumps({"version": sys.version.split()[0], "gil": getattr(sys, "_is_gil_enabled", lambda: True)(),
                  "one_s": one, "one_cores": one_cores, "two_cores": two_cores, "speedup": 2 * one / two}))
