# the ratio of the means, which one slowed run moves
# %% ex3-solution
def honest_speedup(reference_runs, runs):
    return (sum(reference_runs) / len(reference_runs)) / (sum(runs) / len(runs))
