# yields once, after all the work
# %% ex1-solution
async def checksum_all_fair(records):
    total = sum(checksum(record) for record in records)
    await asyncio.sleep(0)
    return total
