# forgets the start-up: any pool of two or more wins
# %% ex1-solution
def worth_a_process_pool(work_s, startup_s, cpus):
    return work_s / cpus < work_s
