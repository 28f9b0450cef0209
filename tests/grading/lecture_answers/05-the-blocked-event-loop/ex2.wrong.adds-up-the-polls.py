# counts right, but adds the three 40 ms polls as if they were one step
# %% ex2-solution
def blocking_steps(make_coroutine, threshold_s):
    return sum(1 for message in slow_callbacks(make_coroutine, threshold_s) if "took" in message)


SAFE = {"reads_config"}
