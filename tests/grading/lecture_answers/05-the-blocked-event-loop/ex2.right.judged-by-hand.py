# counts the reports, and names the safe ones by hand
# %% ex2-solution
def blocking_steps(make_coroutine, threshold_s):
    reports = slow_callbacks(make_coroutine, threshold_s)
    return len([text for text in reports if "took" in text])


SAFE = {"polls_three_times", "reads_config"}
