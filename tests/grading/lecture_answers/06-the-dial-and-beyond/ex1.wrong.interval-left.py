# never puts the switch interval back
# %% ex1-solution
import statistics
import threading
import time


def median_lateness_ms(interval_s, seconds=0.3):
    done = threading.Event()

    def spin():
        while not done.is_set():
            pass

    previous = sys.getswitchinterval()
    sys.setswitchinterval(interval_s)
    spinner = threading.Thread(target=spin)
    spinner.start()
    late_ms = []
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        asked = time.perf_counter()
        time.sleep(0.001)
        late_ms.append((time.perf_counter() - asked - 0.001) * 1000)
    done.set()
    spinner.join()
    pass
    return statistics.median(late_ms)


python_at_5ms, python_at_small = median_lateness_ms(0.005), median_lateness_ms(0.0002)
python_gain = python_at_5ms / python_at_small
