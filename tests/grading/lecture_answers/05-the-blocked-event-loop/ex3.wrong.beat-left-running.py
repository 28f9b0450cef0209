# never stops the beat task
# %% ex3-solution
async def longest_gap_ms(handler, every_s=0.01):
    stamps = [time.perf_counter()]

    async def beat():
        while True:
            await asyncio.sleep(every_s)
            stamps.append(time.perf_counter())

    asyncio.ensure_future(beat())
    await asyncio.sleep(0)
    await handler()
    stamps.append(time.perf_counter())
    return 1000 * max(b - a for a, b in zip(stamps, stamps[1:]))
