# calls sys._is_gil_enabled, which 3.11 does not have
# %% ex3-solution
def gil_is_enabled():
    return sys._is_gil_enabled()
