# the same three ceilings read from a table
# %% ex2-solution
def speedup_ceiling(kind, threads, cpus):
    return {"python": 1, "waiting": threads, "releases-gil": min(threads, cpus)}[kind]
