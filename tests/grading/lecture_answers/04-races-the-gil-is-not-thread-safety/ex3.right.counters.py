# a Counter per thread, added up after the joins
# %% ex3-solution
import threading
from collections import Counter


def tally_in_threads(chunks):
    mine = [Counter() for _ in chunks]
    threads = [threading.Thread(target=mine[i].update, args=(chunk,)) for i, chunk in enumerate(chunks)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return dict(sum(mine, Counter()))
