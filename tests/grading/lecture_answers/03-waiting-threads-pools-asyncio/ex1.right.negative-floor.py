# the ceiling written as a negated floor division
# %% ex1-solution
def predicted_wall(n_waits, workers, delay):
    return -(-n_waits // workers) * delay
