# a fork pool with a function of the notebook (the old test passed it)
# %% ex2-solution
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

def cube(x):
    return x ** 3


def cubes_under_spawn(numbers):
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(cube, numbers, timeout=60))
