# zlib compression of a few megabytes
# %% ex3-solution-set
RELEASES_GIL = {"time.sleep(0.05)", "zlib.compress(6 MB)", "hashlib.sha256(1 MB)"}
# %% ex3-solution-job
import random
import zlib

NOISE = random.Random(1).randbytes(4_000_000)


def job(i):
    return len(zlib.compress(NOISE, 6))
