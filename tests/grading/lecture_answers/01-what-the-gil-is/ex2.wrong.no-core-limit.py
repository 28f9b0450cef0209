# C code that releases the GIL is not limited by the cores
# %% ex2-solution
def speedup_ceiling(kind, threads, cpus):
    return 1 if kind == "python" else threads
