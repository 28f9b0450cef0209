# the beat ends on an event instead of a cancel
# %% ex3-solution
async def longest_gap_ms(handler, every_s=0.01):
    stamps = [time.perf_counter()]
    finished = asyncio.Event()

    async def beat():
        while not finished.is_set():
            await asyncio.sleep(every_s)
            stamps.append(time.perf_counter())

    beating = asyncio.create_task(beat())
    await asyncio.sleep(0)
    await handler()
    stamps.append(time.perf_counter())
    finished.set()
    await beating
    return 1000 * max(b - a for a, b in zip(stamps, stamps[1:]))
