def job(i):
    return i
