"""%%heartbeat's event-loop half in pure Python, shared by the kernel and by child interpreters.

run_cell() runs a cell in a fresh asyncio event loop beside a heartbeat task that wants to wake
every `every` seconds (the cell may use top-level await); asyncio's debug-mode warnings about
slow callbacks are captured, never printed. measure() runs it beside a GIL probe, tools.probe:
in the kernel the native one (magics/framework/runner's tools), in a child interpreter
(--python) a Python probe thread (lateness_probe.py, python_tools.PYTHON_TOOLS) in its place.
Standard library only, CPython 3.8+.
"""

import asyncio
import contextlib
import inspect
import logging
import time

try:  # as gillab.runners.task_heartbeat, in the kernel
    from .python_tools import PYTHON_TOOLS
    from .student_code import as_the_students, cell_namespace, compile_cell
except ImportError:  # from this folder, in a child (child.py)
    from python_tools import PYTHON_TOOLS
    from student_code import as_the_students, cell_namespace, compile_cell


class _Capture(logging.Handler):
    """asyncio's warnings, kept. A slow step of the task running the cell (its coroutine function
    `cell_task`) is the cell's code between two awaits: it is named so, not by the task's repr
    (this module's path and frame)."""

    def __init__(self, cell_task):
        logging.Handler.__init__(self, logging.WARNING)
        self.cell_task = f"coro=<{cell_task.__qualname__}()"
        self.messages = []

    def emit(self, record):
        message = record.getMessage()
        if message.startswith("Executing ") and self.cell_task in message:
            message = "Executing the cell's code" + message[message.rindex(" took "):]
        self.messages.append(message)


def _cancel_all(loop):
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


class _SlowCallbackLoop(asyncio.SelectorEventLoop):
    """Debug mode's slow-callback warnings only. Debug mode also records a stack summary with
    every callback, future and task, which stats source files that linecache holds: each stat
    releases the GIL, and beside a computing thread every release costs the loop a switch
    interval to win it back, so the gaps it measured grew with that cache."""

    def get_debug(self):  # read where stacks are recorded; slow callbacks read self._debug
        return False


def run_cell(code, namespace, every, warmup, slow):
    """Runs the compiled cell in a new loop, cleaned up on every exit (interrupt included) as
    asyncio.run does, but with SIGINT left as KeyboardInterrupt so blocking cells stop. Returns the
    tick times and the cell's start and end (time.perf_counter_ns) and the slow-callback messages."""
    ticks = []
    times = {}

    async def heartbeat(stop):
        while not stop.is_set():
            await asyncio.sleep(every)
            ticks.append(time.perf_counter_ns())

    async def main():
        stop = asyncio.Event()
        times["start"] = time.perf_counter_ns()
        beat = asyncio.create_task(heartbeat(stop))
        await asyncio.sleep(warmup)
        times["cell_start"] = time.perf_counter_ns()
        try:
            outcome = eval(code, namespace)
            if inspect.iscoroutine(outcome):
                await outcome
        finally:
            times["cell_end"] = time.perf_counter_ns()
            stop.set()
        await beat

    logger = logging.getLogger("asyncio")
    saved = (logger.handlers[:], logger.propagate, logger.level)
    capture = _Capture(main)
    logger.handlers, logger.propagate = [capture], False
    logger.setLevel(logging.WARNING)
    loop = _SlowCallbackLoop()
    loop.set_debug(True)
    loop.slow_callback_duration = slow
    try:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(main())
    finally:
        try:
            _cancel_all(loop)
            loop.run_until_complete(loop.shutdown_asyncgens())
            if hasattr(loop, "shutdown_default_executor"):  # 3.9+
                loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()
            logger.handlers, logger.propagate = saved[0], saved[1]
            logger.setLevel(saved[2])
    times.update(ticks=ticks, slow=capture.messages)
    return times


def measure(request, progress=None, tools=None):
    """request: cell, every_s, warmup_s, slow_s, probe_every_s, capacity, blame. In the kernel
    `tools` are the native ones: the cell runs in the user's namespace (tools.namespace) beside the
    native probe (tools.probe) and, with blame, the sampler following this thread (tools.watch);
    both are handed back in the answer for the magic to read, and times are
    time.perf_counter_ns(). In a child interpreter (tools None) the cell runs in a fresh namespace
    of its own (the kernel's names are not here) beside a Python probe thread, whose report comes
    back, and times are in ns since that probe started, as the kernel reports its own."""
    __tracebackhide__ = True  # an error in the cell shows the student's frames, not this one
    code = compile_cell(request["cell"], "heartbeat")
    in_kernel = tools is not None
    namespace = cell_namespace(tools)
    probe = (tools if in_kernel else PYTHON_TOOLS).probe("sleep", request["probe_every_s"], request["capacity"])
    following = in_kernel and request["blame"]
    with (tools.watch(None, True, True) if following else contextlib.nullcontext()) as watch:
        probe.start()
        try:
            outcome = run_cell(code, namespace, request["every_s"], request["warmup_s"], request["slow_s"])
        except Exception as error:
            raise as_the_students(error)
        finally:
            probe.stop()
    origin = 0 if in_kernel else probe.started_ns
    cell = {"start_ns": outcome["start"] - origin, "cell_start_ns": outcome["cell_start"] - origin,
            "cell_end_ns": outcome["cell_end"] - origin, "ticks_ns": [t - origin for t in outcome["ticks"]],
            "slow": outcome["slow"]}
    return {"cell": cell, "probe": probe if in_kernel else probe.report(), "watch": watch}
