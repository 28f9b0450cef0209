# a job that waits instead of computing
# %% ex3-solution-set
RELEASES_GIL = {"time.sleep(0.05)", "zlib.compress(6 MB)", "hashlib.sha256(1 MB)"}
# %% ex3-solution-job
import time


def job(i):
    time.sleep(0.2)
