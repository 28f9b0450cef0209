# the GIL is always on (the old test passed it where no free-threaded build exists)
# %% ex3-solution
def gil_is_enabled():
    return True
