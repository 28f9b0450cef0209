# one shared dict updated word by word
# %% ex3-solution
import threading
from collections import Counter


def tally_in_threads(chunks):
    shared = {}

    def count(chunk):
        for word in chunk:
            shared[word] = shared.get(word, 0) + 1

    threads = [threading.Thread(target=count, args=(chunk,)) for chunk in chunks]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return shared
