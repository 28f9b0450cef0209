"""gillab.course.asyncio_debug: debug mode's reports as a list."""

import asyncio
import logging
import os
import subprocess
import sys
import time

import pytest

from gillab.course.asyncio_debug import slow_callbacks


async def blocks():
    time.sleep(0.15)
    await asyncio.sleep(0)


def test_slow_callbacks_collects_reports_and_restores_the_asyncio_logger():
    logger = logging.getLogger("asyncio")
    before = (logger.handlers[:], logger.propagate, logger.level)
    assert len(slow_callbacks(blocks, 0.1)) == 1
    assert slow_callbacks(blocks, 1.0) == []
    assert (logger.handlers[:], logger.propagate, logger.level) == before


def test_slow_callbacks_reports_even_when_the_asyncio_logger_was_disabled_and_leaves_it_so():
    logger = logging.getLogger("asyncio")
    logger.disabled = True  # what logging.config.dictConfig leaves on a logger it does not name
    try:
        assert len(slow_callbacks(blocks, 0.1)) == 1
        assert logger.disabled
    finally:
        logger.disabled = False


def test_slow_callbacks_reports_after_nest_asyncio_patched_the_loop_class():
    """jupyter_client's run_sync applies nest_asyncio in any process that drives a kernel; its
    patched loop class never times a callback. In a child: the patch is for the process's life."""
    pytest.importorskip("nest_asyncio")
    code = ("import asyncio, time, nest_asyncio\n"
            "from gillab.course.asyncio_debug import slow_callbacks\n"
            "async def blocks():\n"
            "    time.sleep(0.15)\n"
            "    await asyncio.sleep(0)\n"
            "nest_asyncio.apply(asyncio.new_event_loop())\n"
            "print(len(slow_callbacks(blocks, 0.1)))\n")
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert (child.returncode, child.stdout, child.stderr) == (0, "1\n", "")
