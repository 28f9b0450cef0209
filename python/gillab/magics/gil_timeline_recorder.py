"""The two stamping threads of %switchinterval's GIL timeline (magics/instruments/gil_timeline.cpp):
only the GIL holder can stamp the clock, so the stamps say who held it, turn by turn.

The stamp buffers are allocated before the threads start and the loop does nothing but stamp,
so a loop iteration is a fraction of a microsecond and the native code can tell a thread that
waited from one that ran."""

import array
import threading
import time


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
