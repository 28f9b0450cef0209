"""The CPU-bound competitor of the latency magics, in pure Python: a thread that runs one step
of a load after another until stopped, counting steps. A step is either many short bytecodes
(the switch interval can cut it) or one long C call (nothing can, unless the call releases the
GIL). %switchinterval --sweep's loop (task_switchinterval.py) starts it, in the kernel and in
child interpreters (--python) alike; magics/instruments/spinner.cpp describes the loads for people.
Standard library only, CPython 3.8+.

Sizes are chosen so that one long C step takes tens to hundreds of ms on a laptop: long
against any switch interval, short for a demo.
"""

import random
import re
import threading
import zlib

_cache = {}


def make_step(load):
    if load == "python":
        def step():
            total = 0
            for k in range(200):
                total += k
            return total
        return step
    if load not in _cache:
        if load == "bigint":
            _cache[load] = (7 ** 100000, 11 ** 100000)
        elif load == "sorted":
            rng = random.Random(0)
            _cache[load] = [rng.random() for _ in range(300000)]
        elif load == "regex":
            _cache[load] = (re.compile(r"(x+x+)+y"), "x" * 18)
        elif load == "zlib":
            _cache[load] = " ".join(str(k * k) for k in range(150000)).encode()
        else:
            raise ValueError("no spinner load named %r" % load)
    data = _cache[load]
    if load == "bigint":
        a, b = data
        return lambda: a * b
    if load == "sorted":
        return lambda: sorted(data)
    if load == "regex":
        pattern, text = data
        return lambda: pattern.match(text)
    return lambda: zlib.compress(data, 6)


def start(load, state):
    """Starts the spinner thread; state is [running, steps]: clear state[0] to stop it."""
    step = make_step(load)

    def spin():
        while state[0]:
            step()
            state[1] += 1
    thread = threading.Thread(target=spin, name="gillab-spinner-" + load, daemon=True)
    thread.start()
    return thread
