# one shared Counter updated with whole chunks (the old test passed it)
# %% ex3-solution
import threading
from collections import Counter


def tally_in_threads(chunks):
    shared = Counter()
    threads = [threading.Thread(target=shared.update, args=(chunk,)) for chunk in chunks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return dict(shared)
