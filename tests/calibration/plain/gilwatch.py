"""Plain reference for %%gilwatch's held shares: the same threads, each reading its own CPU time
(time.thread_time) as it ends, over the wall time from the first start to the last join. A
thread running pure Python uses the CPU only while it holds the GIL, so its CPU share is the
share of the wall time it held it (less the moments the OS ran something else while it did).
For the turns, two spinners count their own: a thread that finds the other one ran since its
last round of additions has begun a new turn (a hand-over of the GIL between them; the OS
stopping a thread that holds the GIL is not one).
Standard library only; `python3 gilwatch.py spinners 1` prints spinner-0's share,
`python3 gilwatch.py turns 1` both spinners' turns.
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


def counting_spinners(seconds):
    """Two spinners ("spin-0", "spin-1") that count their turns into `turns` as they run."""
    turns = {"spin-0": 0, "spin-1": 0}
    last = [None]

    def spin_counting(seconds):
        me, clock = threading.current_thread().name, time.perf_counter
        end = clock() + seconds
        while clock() < end:
            if last[0] != me:
                last[0] = me
                turns[me] += 1
            total = 0
            for k in range(200):
                total += k

    threads = [threading.Thread(target=spin_counting, args=(seconds,), name="spin-%d" % k) for k in range(2)]
    return threads, turns


def counted_turns(seconds):
    """Both spinners' turns, as they counted them, started and joined as the magic's cell does."""
    threads, turns = counting_spinners(seconds)
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(turns.values())


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
    if sys.argv[1] == "turns":
        print(counted_turns(float(sys.argv[2])))
    else:
        print(cpu_shares(sys.argv[1], float(sys.argv[2])))
