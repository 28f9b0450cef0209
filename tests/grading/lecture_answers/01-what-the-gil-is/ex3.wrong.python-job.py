# the right set, but a job of Python arithmetic, which keeps the GIL (the old test passed it)
# %% ex3-solution-set
RELEASES_GIL = {"time.sleep(0.05)", "zlib.compress(6 MB)", "hashlib.sha256(1 MB)"}
# %% ex3-solution-job
def job(i):
    return sum(k * k for k in range(1_500_000))
