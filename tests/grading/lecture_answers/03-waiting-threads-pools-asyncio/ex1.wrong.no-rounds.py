# divides without counting whole rounds
# %% ex1-solution
def predicted_wall(n_waits, workers, delay):
    return n_waits / workers * delay
