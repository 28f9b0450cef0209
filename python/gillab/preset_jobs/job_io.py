import asyncio
import time


def job(i):
    time.sleep(0.1)
    return i


async def ajob(i):
    await asyncio.sleep(0.1)
    return i
