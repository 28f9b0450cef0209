"""%%heartbeat's event-loop half in pure Python, shared by the kernel and by child interpreters.

run_cell() runs a cell in a fresh asyncio event loop beside a heartbeat task that wants to wake
every `every` seconds (the cell may use top-level await); asyncio's debug-mode warnings about
slow callbacks are captured, never printed. measure() runs it beside a GIL probe: in the kernel
the magic's native one, in a child interpreter (--python) a Python probe thread
(lateness_probe.py) in its place. Standard library only, CPython 3.8+.
"""

import ast
import asyncio
import builtins
import inspect
import logging
import time

try:  # as gillab.runners.task_heartbeat, in the kernel
    from .cell_error import CellError
    from .lateness_probe import LatenessProbe
except ImportError:  # from this folder, in a child (child.py)
    from cell_error import CellError
    from lateness_probe import LatenessProbe


class _Capture(logging.Handler):
    def __init__(self):
        logging.Handler.__init__(self, logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _cancel_all(loop):
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))


def compile_cell(source):
    return compile(source, "<%%heartbeat cell>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)


def run_cell(source, namespace, every, warmup, slow):
    """Runs the cell in a new loop, cleaned up on every exit (interrupt included) as asyncio.run
    does, but with SIGINT left as KeyboardInterrupt so blocking cells stop. Returns the tick
    times and the cell's start and end (time.perf_counter_ns) and the slow-callback messages."""
    code = compile_cell(source)
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
    capture = _Capture()
    logger.handlers, logger.propagate = [capture], False
    logger.setLevel(logging.WARNING)
    loop = asyncio.new_event_loop()
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
    """request: cell, every_s, warmup_s, slow_s, probe_every_s, capacity. In the kernel `tools`
    brings the user's namespace and the magic's native GIL probe (tools.namespace,
    tools.gil_probe), which the magic reads itself: times come back as time.perf_counter_ns().
    In a child interpreter (tools None) the cell runs in a fresh namespace of its own (the
    kernel's names are not here) beside a Python probe thread, whose report comes back, and times
    are in ns since that probe started, as the kernel reports its own."""
    try:
        compile_cell(request["cell"])
    except SyntaxError as error:
        raise CellError("the cell is not valid Python here: %s (line %s)" % (error.msg, error.lineno))
    in_kernel = tools is not None and hasattr(tools, "gil_probe")
    if in_kernel:
        namespace, probe = tools.namespace, tools.gil_probe
    else:
        namespace = {"__name__": "__main__", "__builtins__": builtins}
        probe = LatenessProbe("sleep", request["probe_every_s"], request["capacity"])
    probe.start()
    try:
        outcome = run_cell(request["cell"], namespace, request["every_s"], request["warmup_s"], request["slow_s"])
    finally:
        probe.stop()
    origin = 0 if in_kernel else probe.started_ns
    answer = {"start_ns": outcome["start"] - origin, "cell_start_ns": outcome["cell_start"] - origin,
              "cell_end_ns": outcome["cell_end"] - origin, "ticks_ns": [t - origin for t in outcome["ticks"]],
              "slow": outcome["slow"]}
    if not in_kernel:
        answer["probe"] = probe.report()
    return answer
