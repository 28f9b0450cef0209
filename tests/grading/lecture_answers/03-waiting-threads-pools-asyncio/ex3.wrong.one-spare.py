# one thread more than needed, for safety
# %% ex3-solution
def pool_for(n_waits, delay, deadline):
    rounds = int(deadline // delay)
    if rounds < 1:
        return None
    return math.ceil(n_waits / rounds) + 1
