"""%switchinterval --timeline's measurement: two pure-Python threads stamp the clock, interval by
interval. Only the GIL holder can stamp, so the stamps say who held it, turn by turn; the magic
(magics/instruments/gil_timeline) reads the turns and held spans out of them and presents them.

The stamp buffers are allocated before the threads start and the loop does nothing but stamp,
so a loop iteration is a fraction of a microsecond and the analysis can tell a thread that
waited from one that ran. The threads are the instrument, and they are Python on purpose: no
native tool is needed, and tools is None in a child alike. Standard library only, CPython 3.8+.
"""

import array
import threading
import time

try:  # as gillab.runners.task_timeline, in the kernel
    from .switch_interval import ScopedSwitchInterval
except ImportError:  # from this folder, in a child (child.py)
    from switch_interval import ScopedSwitchInterval


def record(window_s, capacity):
    """(the moment both threads were released, [stamps of thread 0, stamps of thread 1]) in
    perf_counter_ns; each thread stamps for window_s or until `capacity` stamps."""
    clock = time.perf_counter_ns
    stamps = [array.array("q", bytes(8 * capacity)) for _ in range(2)]
    counts = [0, 0]
    start = threading.Barrier(3)

    def stamp(k):
        buffer = stamps[k]
        start.wait()
        end = clock() + int(window_s * 1e9)
        n = 0
        while n < capacity:
            now = clock()
            buffer[n] = now
            n += 1
            if now > end:
                break
        counts[k] = n

    threads = [threading.Thread(target=stamp, args=(k,), name="gillab-timeline-%d" % k, daemon=True) for k in range(2)]
    for t in threads:
        t.start()
    start.wait()
    opened = clock()
    for t in threads:
        t.join()
    return opened, [stamps[k][:counts[k]] for k in range(2)]


def measure(request, progress=None, tools=None):
    """request: intervals_s (in order), window_s, capacity (stamps a thread may take). Per
    interval, set for its window and put back after: {"interval_s", "opened_ns", "stamps": two
    arrays of perf_counter_ns}."""
    runs = []
    with ScopedSwitchInterval() as interval:
        for interval_s in request["intervals_s"]:
            interval.set(interval_s)
            opened, stamps = record(request["window_s"], request["capacity"])
            runs.append({"interval_s": interval_s, "opened_ns": opened, "stamps": stamps})
    return {"runs": runs}
