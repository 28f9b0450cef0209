# a list as the stop flag, and the set written out
# %% ex2-solution
import threading


def longest_stall_ms(call):
    stop, overruns_ms = [], []

    def sleep_again_and_again():
        while not stop:
            asked = time.perf_counter()
            time.sleep(0.001)
            overruns_ms.append((time.perf_counter() - asked - 0.001) * 1000)

    sleeper = threading.Thread(target=sleep_again_and_again)
    sleeper.start()
    try:
        call()
    finally:
        stop.append(True)
        sleeper.join()
    return max(overruns_ms, default=0.0)


HOLDS_THE_GIL = {"sort", "multiply"}
