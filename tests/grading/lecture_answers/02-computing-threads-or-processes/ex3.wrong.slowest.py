# the ratio of the slowest runs
# %% ex3-solution
def honest_speedup(reference_runs, runs):
    return max(reference_runs) / max(runs)
