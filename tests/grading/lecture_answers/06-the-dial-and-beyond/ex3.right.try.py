# asks forgiveness on 3.11
# %% ex3-solution
def gil_is_enabled():
    try:
        return bool(sys._is_gil_enabled())
    except AttributeError:
        return True
