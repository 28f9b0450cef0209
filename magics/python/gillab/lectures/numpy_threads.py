"""Lecture 6's NumPy measurements: which BLAS this process loaded, three NumPy jobs
timed in threads by %%gilbench, and one matrix product's cores in a child process
with the BLAS thread variables unset and set to 1."""

import json
import os
import re
import subprocess
import sys

# What a shared library's path says about how that BLAS uses threads.
BLAS_KINDS = [
    ("openblas", "OpenBLAS: one thread per core inside each large call (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS)"),
    ("mkl", "Intel MKL: one thread per core inside each large call (MKL_NUM_THREADS, OMP_NUM_THREADS)"),
    ("blis", "BLIS: threaded when built with OpenMP or pthreads (BLIS_NUM_THREADS, OMP_NUM_THREADS)"),
    ("atlas", "ATLAS: threaded only in its parallel build"),
    ("/blas/", "the reference BLAS from Netlib: one thread, the caller's"),
]
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")


def loaded_blas(maps="/proc/self/maps"):
    """(path, kind) of the BLAS mapped into this process (after NumPy's import), not what a
    configuration file claims; (None, ...) when NumPy uses no separate BLAS library."""
    with open(maps) as lines:
        paths = {line.split()[-1] for line in lines if re.search(r"blas|mkl|blis|atlas", line.rsplit("/", 1)[-1])}
    for path in sorted(paths):
        for marker, kind in BLAS_KINDS:
            if marker in path:
                return path, kind
    return (sorted(paths)[0], "unknown BLAS") if paths else (None, "no separate BLAS library (NumPy's own kernels)")


def jobs(floats, passes, matrix):
    """The three %%gilbench cells: a float loop (releases the GIL), the same arithmetic on
    dtype=object (holds it), and a matrix product (handed to the BLAS)."""
    return {
        "floats": f'''
import numpy as np
DATA = np.random.default_rng(0).random({floats})
def job(i):
    out = np.empty_like(DATA)
    for _ in range({passes}):  # in place: no fresh temporary arrays to allocate on every pass
        np.sin(DATA, out=out)
        np.sqrt(out, out=out)
    return float(out.sum())
''',
        "objects": f'''
import numpy as np
DATA = np.random.default_rng(0).random({floats // 10}).astype(object)  # a tenth: Python objects are slow
def job(i):
    return float((DATA * 1.5 + 1.0).sum())
''',
        "matmul": f'''
import numpy as np
M = np.random.default_rng(0).random(({matrix}, {matrix}))
def job(i):
    return float((M @ M).trace())
''',
    }


def measure(sources, options):
    """{name: %%gilbench result} for each job source, run with `options` (not displayed)."""
    from IPython import get_ipython
    return {name: get_ipython().run_cell_magic("gilbench", options, source) for name, source in sources.items()}


_ONE_PRODUCT = '''
import json, sys, time
import numpy as np
n = int(sys.argv[1])
M = np.random.default_rng(0).random((n, n))
M @ M  # the first call starts the BLAS's threads, if it has any
best = None
for _ in range(3):
    start, cpu = time.perf_counter(), time.process_time()
    M @ M
    wall = time.perf_counter() - start
    if best is None or wall < best[0]:
        best = (wall, (time.process_time() - cpu) / wall)
print(json.dumps({"wall_s": best[0], "cores": best[1]}))
'''


def one_product(matrix, variables, timeout=60):
    """{wall_s, cores} of the fastest of 3 matrix products of size `matrix` in a child whose BLAS
    thread variables are `variables` (the others unset); None if it failed or ran past `timeout`."""
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARIABLES}
    env.update(variables)
    try:
        done = subprocess.run([sys.executable, "-c", _ONE_PRODUCT, str(matrix)], capture_output=True, text=True,
                              env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(done.stdout) if done.returncode == 0 else None


def blas_threads(matrix):
    """One product's figures with the variables left unset ("defaults") and set to 1 ("one thread")."""
    return {"defaults": one_product(matrix, {}), "one thread": one_product(matrix, {v: "1" for v in THREAD_VARIABLES})}
