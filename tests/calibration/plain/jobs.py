"""The jobs the calibration times, through %%gilbench (its cell imports them from here) and
through the plain scripts alike, so both run the same code. Standard library only."""

import asyncio
import time
import zlib

# About 0.3 MB of digits: one compression takes tens of ms, with the GIL released.
DATA = " ".join(str(k * k) for k in range(30_000)).encode()


def python(i):
    total = 0
    for k in range(300_000):
        total += k
    return total


def sleep(i):
    time.sleep(0.05)
    return i


def wait(i):
    time.sleep(0.1)
    return i


def compress(i):
    return len(zlib.compress(DATA, 6))


async def asleep(i):
    await asyncio.sleep(0.05)
    return i


async def await_wait(i):
    await asyncio.sleep(0.1)
    return i


def hold(i):
    """40 MB held across a sleep (the GIL released): N threads hold N blocks at once (the sleep
    outlasts N allocations on a loaded machine, so the peak does not depend on their timing)."""
    block = b"x" * 40_000_000
    time.sleep(0.3)
    return len(block)


def noop(i):
    return i
