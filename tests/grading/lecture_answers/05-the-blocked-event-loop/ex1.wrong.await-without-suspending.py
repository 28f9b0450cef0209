# awaits a coroutine per record, which never suspends
# %% ex1-solution
async def checksum_all_fair(records):
    async def one(record):
        return checksum(record)
    total = 0
    for record in records:
        total += await one(record)
    return total
