import hashlib
import random

DATA = memoryview(random.Random(0).randbytes(16 * 2**20))
CHUNK = 1024  # below HASHLIB_GIL_MINSIZE (2048): hashed with the GIL held


def job(i):
    h = hashlib.sha256()
    for start in range(0, len(DATA), CHUNK):
        h.update(DATA[start:start + CHUNK])
    return h.hexdigest()
