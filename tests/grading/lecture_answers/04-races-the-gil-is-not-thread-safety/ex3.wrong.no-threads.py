# counts every chunk in the calling thread
# %% ex3-solution
import threading
from collections import Counter


def tally_in_threads(chunks):
    return dict(Counter(w for chunk in chunks for w in chunk))
