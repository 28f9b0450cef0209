"""The cell a student debugs, shared by the debugger's protocol test and its browser test: a
worker thread runs `work`, where the breakpoints go."""

THREADED_CELL = """\
import threading

def work(n):
    total = 0
    for i in range(n):
        total += i
    return total

results = []
worker = threading.Thread(target=lambda: results.append(work(4)), name="worker")
worker.start()
worker.join()
print("worker returned", results[0])
"""
LOOP_LINE = 6    # total += i
RETURN_LINE = 7  # return total
