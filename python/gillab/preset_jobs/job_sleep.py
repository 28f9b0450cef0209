import time


def job(i):
    time.sleep(0.05)
    return i
