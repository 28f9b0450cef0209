# the in-place add, which 3.11 does not interrupt between read and write
# %% ex1-solution
%%race --modes unlocked,lock --threads 4 --iterations {ITER // 2} --runs 3 --switch-interval 100us -o visible
hits = 0
hits += 1
