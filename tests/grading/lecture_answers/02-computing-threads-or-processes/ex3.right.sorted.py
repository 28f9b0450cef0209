# the fastest runs found by sorting
# %% ex3-solution
def honest_speedup(reference_runs, runs):
    return sorted(reference_runs)[0] / sorted(runs)[0]
