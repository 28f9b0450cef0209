# every C call said to hold the GIL
# %% ex2-solution
import threading


def longest_stall_ms(call):
    stop, overruns_ms = threading.Event(), []

    def sleep_again_and_again():
        while not stop.is_set():
            asked = time.perf_counter()
            time.sleep(0.001)
            overruns_ms.append((time.perf_counter() - asked - 0.001) * 1000)

    sleeper = threading.Thread(target=sleep_again_and_again)
    sleeper.start()
    try:
        call()
    finally:
        stop.set()
        sleeper.join()
    return max(overruns_ms, default=0.0)


HOLDS_THE_GIL = set(CANDIDATES)
