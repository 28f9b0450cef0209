# counts every message, slow or not, and judges by hand
# %% ex2-solution
def blocking_steps(make_coroutine, threshold_s):
    return len(slow_callbacks(make_coroutine, 0.0))


SAFE = {"reads_config", "polls_three_times"}
