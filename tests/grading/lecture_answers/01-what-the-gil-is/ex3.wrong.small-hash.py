# hashes 100-byte pieces, each below hashlib's threshold, and counts them among the releasing calls
# %% ex3-solution-set
RELEASES_GIL = {"time.sleep(0.05)", "zlib.compress(6 MB)", "hashlib.sha256(1 MB)", "hashlib.sha256(100 bytes)"}
# %% ex3-solution-job
import hashlib


def job(i):
    for k in range(100_000):
        hashlib.sha256(b"x" * 100).digest()
