# waits times count over the deadline: rounds are not counted whole
# %% ex3-solution
def pool_for(n_waits, delay, deadline):
    if delay > deadline:
        return None
    return math.ceil(n_waits * delay / deadline)
