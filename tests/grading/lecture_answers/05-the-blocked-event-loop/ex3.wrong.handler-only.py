# times the handler alone, with no beat
# %% ex3-solution
async def longest_gap_ms(handler, every_s=0.01):
    began = time.perf_counter()
    await handler()
    return 1000 * (time.perf_counter() - began)
