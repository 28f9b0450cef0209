"""gillab.course.asyncio_debug: debug mode's reports as a list."""

import logging

from gillab.course.asyncio_debug import slow_callbacks


def test_slow_callbacks_collects_reports_and_restores_the_asyncio_logger():
    import asyncio
    import time

    async def blocks():
        time.sleep(0.15)
        await asyncio.sleep(0)

    logger = logging.getLogger("asyncio")
    before = (logger.handlers[:], logger.propagate, logger.level)
    assert len(slow_callbacks(blocks, 0.1)) == 1
    assert slow_callbacks(blocks, 1.0) == []
    assert (logger.handlers[:], logger.propagate, logger.level) == before
