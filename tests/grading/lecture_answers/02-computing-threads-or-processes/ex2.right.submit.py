# a module of its own, imported with importlib, and one submit per number
# %% ex2-solution
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import importlib

Path(EXERCISE_DIR, "power_of_three.py").write_text("def cubed(x):\n    return x * x * x\n")
importlib.invalidate_caches()
cubed = importlib.import_module("power_of_three").cubed


def cubes_under_spawn(numbers):
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(cubed, x) for x in numbers]
        return [future.result(timeout=60) for future in futures]
