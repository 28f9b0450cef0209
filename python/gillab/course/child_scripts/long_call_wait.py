"""The Russian article's long-call design in a fresh interpreter: a time.sleep(0) probe (the
runners' LatenessProbe, "yield") at a given switch interval, first beside a thread of pure-Python
arithmetic, then beside a thread that multiplies 7**E by 11**E again and again, one C call each.

    long_call_wait.py EXPONENT PYTHON_SECONDS MULTIPLY_SECONDS INTERVAL_MS

Prints JSON: {"multiply_ms": one multiply alone, "bits": [bits of each operand], "interval_ms",
"python": {...}, "multiply": {...}}, each phase {"median_ms", "p95_ms", "worst_ms", "waits"}."""

import json
import pathlib
import statistics
import sys
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "runners"))
from lateness_probe import LatenessProbe  # noqa: E402  (after the path that finds it)


def arithmetic(stop):
    while not stop.is_set():
        total = 0
        for k in range(1000):
            total += k


def multiplying(a, b):
    def run(stop):
        while not stop.is_set():
            a * b  # one C call: no check for a hand-over until it returns
    return run


def phase(busy, seconds):
    stop = threading.Event()
    worker = threading.Thread(target=busy, args=(stop,))
    worker.start()
    time.sleep(0.05)  # the busy thread is running before the probe asks
    probe = LatenessProbe("yield", 0.0, 100_000)
    probe.start()
    time.sleep(seconds)
    probe.stop()
    stop.set()
    worker.join()
    waits = sorted((acquired - asked) * 1e-6 for _, asked, acquired, _ in probe.samples)
    return {"median_ms": statistics.median(waits), "p95_ms": waits[int(0.95 * (len(waits) - 1))],
            "worst_ms": probe.max_wait_ns * 1e-6, "waits": probe.acquisitions}


exponent, python_s, multiply_s, interval_ms = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
a, b = 7 ** exponent, 11 ** exponent
started = time.perf_counter()
a * b
alone_ms = 1000 * (time.perf_counter() - started)
sys.setswitchinterval(interval_ms / 1000)
print(json.dumps({"multiply_ms": alone_ms, "bits": [a.bit_length(), b.bit_length()], "interval_ms": interval_ms,
                  "python": phase(arithmetic, python_s), "multiply": phase(multiplying(a, b), multiply_s)}))
