"""Plain reference for %%gilwatch's held shares: the same threads, each reading its own CPU time
(time.thread_time) as it ends, over the wall time from the first start to the last join. A
thread running pure Python uses the CPU only while it holds the GIL, so its CPU share is the
share of the wall time it held it (less the moments the OS ran something else while it did).
Standard library only; `python3 gilwatch.py spinners 1` prints spinner-0's share.
"""

import sys
import threading
import time

from heartbeat import spin


def napper(seconds, spin_s=0.002, nap_s=0.002):
    """Pure Python for `spin_s`, then asleep (the GIL released) for `nap_s`, for `seconds`."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        spin(spin_s)
        time.sleep(nap_s)


LOADS = {"spin": spin, "nap": napper}


def threads_for(design, seconds, wrap=lambda load: load):
    """The threads of a design, named as the magic's cell names them: two spinners ("spinners"),
    or a spinner beside a napper ("mixed"); `wrap` may time each thread's load."""
    kinds = ("spin", "spin") if design == "spinners" else ("spin", "nap")
    return [threading.Thread(target=wrap(LOADS[kind]), args=(seconds,), name="%s-%d" % (kind, k))
            for k, kind in enumerate(kinds)]


def cpu_shares(design, seconds):
    """{thread name: its CPU seconds / the wall seconds of the whole run}."""
    cpu = {}

    def timed(load):
        def run(*args):
            start = time.thread_time()
            load(*args)
            cpu[threading.current_thread().name] = time.thread_time() - start
        return run

    threads = threads_for(design, seconds, timed)
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    return {name: used / wall for name, used in cpu.items()}


def fraction(shares, name):
    """One thread's part of what all of them used: the OS's other work on the machine scales
    every thread's CPU share alike, so this part holds on a loaded machine."""
    return shares[name] / sum(shares.values())


def cpu_fraction(design, seconds, name):
    return fraction(cpu_shares(design, seconds), name)


if __name__ == "__main__":
    print(cpu_shares(sys.argv[1], float(sys.argv[2])))
