# batches of `limit` waits gathered one batch after another
# %% ex2-solution
import asyncio
import time


async def waits_in_flight(n_waits, delay, limit):
    async def one(i):
        await asyncio.sleep(delay)
        return i
    done = []
    for first in range(0, n_waits, limit):
        done += await asyncio.gather(*(one(i) for i in range(first, min(first + limit, n_waits))))
    return done
