# every kind of work scales with the thread count
# %% ex2-solution
def speedup_ceiling(kind, threads, cpus):
    return threads
