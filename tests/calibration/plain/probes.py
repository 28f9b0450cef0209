"""Plain references for %switchinterval --sweep's probes, written from the published design and
nothing of gillab's: a thread spinning on pure-Python additions holds the GIL while a probe
thread wants it. The yielding probe is a loop of `time.sleep(0)` timed around the call; the
sleeping probe ("a waker") wants to run every `every_s` and is late by what the clock says past
that. Standard library only; `python3 probes.py yield 0.005` prints one median in ms.
"""

import statistics
import sys
import threading
import time


def _spin(running):
    while running:
        total = 0
        for k in range(200):
            total += k


def _yielding(running, lateness):
    clock, sleep = time.perf_counter, time.sleep
    while running:
        asked = clock()
        sleep(0)
        lateness.append(clock() - asked)


def _waking(running, lateness, every_s):
    clock, sleep = time.perf_counter, time.sleep
    while running:
        wanted = clock() + every_s
        sleep(every_s)
        lateness.append(clock() - wanted)


def median_lateness_ms(probe, interval_s, duration_s=1.0, every_s=0.001):
    """The probe's median lateness in ms beside one spinner at `interval_s`; the interval is put back."""
    saved = sys.getswitchinterval()
    sys.setswitchinterval(interval_s)
    running, lateness = [True], []
    spinner = threading.Thread(target=_spin, args=(running,), daemon=True)
    if probe == "yield":
        prober = threading.Thread(target=_yielding, args=(running, lateness), daemon=True)
    else:
        prober = threading.Thread(target=_waking, args=(running, lateness, every_s), daemon=True)
    try:
        spinner.start()
        time.sleep(0.05)
        prober.start()
        time.sleep(duration_s)
    finally:
        running.clear()
        spinner.join()
        prober.join()
        sys.setswitchinterval(saved)
    return statistics.median(lateness) * 1e3


if __name__ == "__main__":
    print(median_lateness_ms(sys.argv[1], float(sys.argv[2])))
