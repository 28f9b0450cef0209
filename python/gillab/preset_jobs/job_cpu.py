def job(i):
    total = 0
    for k in range(3_000_000):
        total += k * k % 7
    return total
