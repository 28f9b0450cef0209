# one wait after another whatever the limit
# %% ex2-solution
import asyncio
import time


async def waits_in_flight(n_waits, delay, limit):
    done = []
    for i in range(n_waits):
        await asyncio.sleep(delay)
        done.append(i)
    return done
