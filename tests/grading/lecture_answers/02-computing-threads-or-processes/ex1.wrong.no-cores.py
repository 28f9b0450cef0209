# forgets that the work is shared: the pool always loses
# %% ex1-solution
def worth_a_process_pool(work_s, startup_s, cpus):
    return startup_s + work_s < work_s
