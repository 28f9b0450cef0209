"""How long a thread waits for its turn beside one huge C call, in a fresh interpreter: the
runners' LatenessProbe ("yield": it gives its turn up with time.sleep(0) and times the way
back) at a chosen switch interval, first beside a thread running a pure-Python loop, then
beside a thread that computes 7**E * 11**E over and over.

    long_call_wait.py EXPONENT PYTHON_SECONDS MULTIPLY_SECONDS INTERVAL_MS

Prints JSON: {"multiply_ms": one product timed alone, "bits": [bits of each factor], "interval_ms",
"python": {...}, "multiply": {...}}, each phase {"median_ms", "p95_ms", "worst_ms", "waits"}."""

import json
import pathlib
import statistics
import sys
import threading
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "runners"))
from lateness_probe import LatenessProbe  # noqa: E402  (after the path that finds it)


def python_loop(done):
    while not done.is_set():
        for _ in range(1000):
            pass


def product_loop(factors):
    def run(done):
        while not done.is_set():
            # BINARY_OP: the whole product in C, and no eval-breaker check before it returns
            factors[0] * factors[1]
    return run


def waits_beside(busy, seconds):
    """The probe's waits while `busy` keeps another thread occupied for `seconds`."""
    done = threading.Event()
    other = threading.Thread(target=busy, args=(done,))
    other.start()
    time.sleep(0.05)  # let the busy thread hold the GIL before the first question
    probe = LatenessProbe("yield", 0.0, 100_000)
    probe.start()
    time.sleep(seconds)
    probe.stop()
    done.set()
    other.join()
    waits = sorted((acquired - asked) * 1e-6 for _, asked, acquired, _ in probe.samples)
    return {"median_ms": statistics.median(waits), "p95_ms": waits[int(0.95 * (len(waits) - 1))],
            "worst_ms": probe.max_wait_ns * 1e-6, "waits": probe.acquisitions}


exponent, python_s, multiply_s, interval_ms = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
factors = (7 ** exponent, 11 ** exponent)
timed_from = time.perf_counter()
factors[0] * factors[1]
product_ms = 1000 * (time.perf_counter() - timed_from)
sys.setswitchinterval(interval_ms / 1000)
print(json.dumps({"multiply_ms": product_ms, "bits": [f.bit_length() for f in factors], "interval_ms": interval_ms,
                  "python": waits_beside(python_loop, python_s), "multiply": waits_beside(product_loop(factors), multiply_s)}))
