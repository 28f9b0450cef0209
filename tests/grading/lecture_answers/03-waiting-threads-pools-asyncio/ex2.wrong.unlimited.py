# ignores the limit: every wait in flight at once
# %% ex2-solution
import asyncio
import time


async def waits_in_flight(n_waits, delay, limit):
    async def one(i):
        await asyncio.sleep(delay)
        return i
    return await asyncio.gather(*(one(i) for i in range(n_waits)))
