# computes the cubes in the kernel (the old test passed it)
# %% ex2-solution
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

def cubes_under_spawn(numbers):
    return [x ** 3 for x in numbers]
