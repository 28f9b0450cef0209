# counts right, but calls the hashing coroutine safe because hashlib releases the GIL
# %% ex2-solution
def blocking_steps(make_coroutine, threshold_s):
    return sum(1 for message in slow_callbacks(make_coroutine, threshold_s) if "took" in message)


SAFE = {"reads_config", "polls_three_times", "hashes_a_password"}
