# a helper raced by one thread
# %% ex1-solution
%%race --modes unlocked,lock --threads 1 --iterations {ITER // 2} --runs 3 --switch-interval 100us -o visible
hits = 0
hits = hits + abs(1)
