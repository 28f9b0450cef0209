"""%switchinterval --sweep in a child interpreter (--python): the kernel's measurement with
Python parts. One spinner thread (spinner_loads.py, the same loads the kernel spins) holds the
interpreter while a Python-thread probe (lateness_probe.py) asks for it; per interval, the
probe's samples and the spinner's step count go back to the kernel, which summarises and
renders them as it does its own. The child sets its own switch interval; the kernel's is never
touched. Standard library only, CPython 3.8+.
"""

import sys
import time

import spinner_loads
from lateness_probe import LatenessProbe


class CellError(ValueError):
    """A request this task cannot measure; the message is one line for the student."""


def measure(request, progress=None):
    """request: intervals_s (in order), probe (sleep|yield|none), load (or none), every_s,
    duration_s, settle_s, capacities (samples kept per interval). Returns one run per interval."""
    load, probe = request["load"], request["probe"]
    if load != "none":
        try:
            spinner_loads.make_step(load)
        except ValueError as error:
            raise CellError(str(error))
    saved = sys.getswitchinterval()
    state = [True, 0]
    spinner = spinner_loads.start(load, state) if load != "none" else None
    runs = []
    try:
        plan = list(zip(request["intervals_s"], request["capacities"]))
        for number, (interval_s, capacity) in enumerate(plan, 1):
            if progress:
                progress("interval %g ms (%d of %d)" % (interval_s * 1e3, number, len(plan)))
            sys.setswitchinterval(interval_s)
            time.sleep(request["settle_s"])
            recorder = LatenessProbe(probe, request["every_s"], capacity) if probe != "none" else None
            steps_before = state[1]
            started = time.perf_counter()
            if recorder:
                recorder.start()
            time.sleep(request["duration_s"])
            if recorder:
                recorder.stop()
            window_s = time.perf_counter() - started
            runs.append({"interval_s": interval_s, "applied_interval_s": sys.getswitchinterval(),
                         "window_s": window_s, "spinner_steps": state[1] - steps_before if spinner else 0,
                         "probe": recorder.report() if recorder else None})
    finally:
        state[0] = False
        if spinner:
            spinner.join()
        sys.setswitchinterval(saved)
    return {"runs": runs}
