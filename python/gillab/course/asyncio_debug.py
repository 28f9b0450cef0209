"""asyncio's debug mode as data: the slow-callback reports a loop logs, kept in a
list instead of written to stderr (a stderr line zeroes a graded cell)."""

import asyncio
import logging

# The standard library's own loop methods. nest_asyncio (jupyter_client's run_sync applies it in
# any process that drives a kernel) replaces them on the selector loop's class with a simplified
# _run_once that never times a callback, so debug mode would report nothing.
_STANDARD_LOOP_METHODS = ("run_forever", "run_until_complete", "_run_once", "_check_running")


class _Keep(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


class _StandardLoop(asyncio.SelectorEventLoop):
    """A selector loop that runs as asyncio defines it, whatever patched the loop classes."""


for _name in _STANDARD_LOOP_METHODS:
    setattr(_StandardLoop, _name, getattr(asyncio.BaseEventLoop, _name))


def slow_callbacks(make_coroutine, threshold_s):
    """Run `make_coroutine()` in a new event loop in debug mode with `slow_callback_duration`
    = `threshold_s`; return the messages asyncio logged. The `asyncio` logger is restored,
    disabled again if it was (logging.config.dictConfig, as a Jupyter application may call it,
    disables every logger it does not name)."""
    logger = logging.getLogger("asyncio")
    keep = _Keep()
    saved = (logger.handlers[:], logger.propagate, logger.level, logger.disabled)
    logger.handlers, logger.propagate, logger.disabled = [keep], False, False
    logger.setLevel(logging.WARNING)
    loop = _StandardLoop()
    try:
        loop.set_debug(True)
        loop.slow_callback_duration = threshold_s
        loop.run_until_complete(make_coroutine())
    finally:
        loop.close()
        logger.handlers, logger.propagate, logger.disabled = saved[0], saved[1], saved[3]
        logger.setLevel(saved[2])
    return keep.messages
