# any interpreter that has sys._is_gil_enabled is taken to be free-threaded
# %% ex3-solution
def gil_is_enabled():
    return not hasattr(sys, "_is_gil_enabled")
