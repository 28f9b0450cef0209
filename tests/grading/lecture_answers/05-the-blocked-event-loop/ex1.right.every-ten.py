# yields after every tenth record
# %% ex1-solution
async def checksum_all_fair(records):
    total = 0
    for n, record in enumerate(records):
        total += checksum(record)
        if n % 10 == 9:
            await asyncio.sleep(0)
    return total
