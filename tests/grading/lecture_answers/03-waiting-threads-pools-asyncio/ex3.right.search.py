# tries pool sizes from one upwards
# %% ex3-solution
def pool_for(n_waits, delay, deadline):
    if delay > deadline:
        return None
    size = 1
    while math.ceil(n_waits / size) * delay > deadline:
        size += 1
    return size
