"""Four threads on shared built-in objects, under any interpreter: what the build keeps correct
by itself (one operation on a list: append) and what it does not promise (reading and writing back
a dict entry; one iterator shared by every thread). Prints JSON: the counts each part expected and
what it found."""

import json
import sys
import threading

N = int(sys.argv[1])
THREADS = 4


def in_threads(target, args_of=lambda k: ()):
    crowd = [threading.Thread(target=target, args=args_of(k)) for k in range(THREADS)]
    for thread in crowd:
        thread.start()
    for thread in crowd:
        thread.join()


appended = []


def append_many():
    for i in range(N):
        appended.append(i)


tally = {"n": 0}


def add_many():
    for _ in range(N):
        tally["n"] = tally["n"] + 1


shared = iter(list(range(THREADS * N)))
taken = [[] for _ in range(THREADS)]


def take_from_shared(mine):
    for item in shared:
        mine.append(item)


in_threads(append_many)
in_threads(add_many)
in_threads(take_from_shared, lambda k: (taken[k],))
every = [item for mine in taken for item in mine]
print(json.dumps({"version": sys.version.split()[0], "gil": getattr(sys, "_is_gil_enabled", lambda: True)(),
                  "expected": THREADS * N, "appended": len(appended), "updated": tally["n"],
                  "taken": len(every), "distinct": len(set(every))}))
