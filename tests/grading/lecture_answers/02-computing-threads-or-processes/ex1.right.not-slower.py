# the saving beside the start-up, with <= (the tests ask about no tie)
# %% ex1-solution
def worth_a_process_pool(work_s, startup_s, cpus):
    return startup_s <= work_s - work_s / cpus and cpus > 1
