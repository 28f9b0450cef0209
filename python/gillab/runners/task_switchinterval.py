"""%switchinterval --sweep's measuring loop: the one the kernel runs and the one a child
interpreter (--python) runs. One spinner thread (spinner_loads.py) holds the interpreter while a
probe asks for it; per interval, the probe's report and the spinner's step count go back to the
kernel, which summarises and renders both alike. The probe is the kernel's native one
(magics/instruments/gil_probe, handed over as tools.probe) in the kernel, and a Python thread
(lateness_probe.py, python_tools.PYTHON_TOOLS.probe) in a child, where the native one cannot load. The loop sets the switch
interval of the interpreter it runs in and puts it back. Standard library only, CPython 3.8+.
"""

import sys
import time

try:  # as gillab.runners.task_switchinterval, in the kernel
    from . import spinner_loads
    from .python_tools import PYTHON_TOOLS
    from .switch_interval import ScopedSwitchInterval
    from .cell_error import CellError
except ImportError:  # from this folder, in a child (child.py)
    import spinner_loads
    from python_tools import PYTHON_TOOLS
    from switch_interval import ScopedSwitchInterval
    from cell_error import CellError


def _measure_interval(interval, interval_s, capacity, request, make_probe, state):
    """One interval: set it, let it settle, then the probe's window beside the spinner."""
    interval.set(interval_s)
    time.sleep(request["settle_s"])
    probe = make_probe(request["probe"], request["every_s"], capacity) if request["probe"] != "none" else None
    steps_before = state[1]
    started = time.perf_counter()
    if probe:
        probe.start()
    try:
        time.sleep(request["duration_s"])
    finally:
        if probe:  # also on interrupt: a native probe must not outlive the sweep
            probe.stop()
    window_s = time.perf_counter() - started
    return {"interval_s": interval_s, "applied_interval_s": sys.getswitchinterval(), "window_s": window_s,
            "spinner_steps": state[1] - steps_before, "probe": probe.report() if probe else None}


def measure(request, progress=None, tools=None):
    """request: intervals_s (in order), probe (sleep|yield|none), load (or none), every_s,
    duration_s, settle_s, capacities (samples kept per interval). tools: the kernel's native
    instruments (tools.probe(schedule, every_s, capacity) with start / stop / report); None in
    a child. Returns one run per interval."""
    load = request["load"]
    if load != "none":
        try:
            spinner_loads.make_step(load)
        except ValueError as error:
            raise CellError(str(error))
    make_probe = (tools if tools is not None else PYTHON_TOOLS).probe
    report = progress or (lambda text: None)
    state = [True, 0]
    spinner = None
    runs = []
    with ScopedSwitchInterval() as interval:
        try:
            if load != "none":
                report("starting the %s spinner" % load)
                spinner = spinner_loads.start(load, state)
            plan = list(zip(request["intervals_s"], request["capacities"]))
            for number, (interval_s, capacity) in enumerate(plan, 1):
                report("interval %g ms (%d of %d)" % (interval_s * 1e3, number, len(plan)))
                runs.append(_measure_interval(interval, interval_s, capacity, request, make_probe, state))
        finally:
            state[0] = False
            if spinner:
                spinner.join()
    return {"runs": runs}
