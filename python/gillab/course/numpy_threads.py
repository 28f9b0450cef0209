"""Lecture 6's NumPy measurements: which BLAS this process loaded, three NumPy jobs
timed in threads by %%gilbench, and one matrix product's cores in a child process
with the BLAS thread variables unset and set to 1."""

import json
import os
import re
import subprocess
import sys

from IPython.display import Markdown

from ..runners.cores import usable_cores
from .runs import best_speedup, busy_note, cores_used
from .tables import table

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


def describe():
    """Prints NumPy's version, the BLAS this process loaded and the thread variables; returns
    (numpy or None, BLAS path, BLAS kind). Without NumPy it says so: nothing is measured then."""
    try:
        import numpy
    except ImportError:
        print("NumPy is not installed for this kernel's Python (Debian: apt install python3-numpy). "
              "The NumPy measurements below are skipped; nothing in their place is a measurement.")
        return None, None, None
    path, kind = loaded_blas()
    print(f"NumPy {numpy.__version__}; BLAS: {path}\n  = {kind}")
    for variable in THREAD_VARIABLES:
        print(f"  {variable}={os.environ.get(variable, '(not set)')}")
    return numpy, path, kind


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


def jobs_table(runs, floats, passes, matrix, cpus=None):
    """The jobs' cores alone and speed-ups at 2 and 4 threads beside the ceiling of `cpus` cores,
    and a busy-machine note when the float job's sequential run got too little of a core."""
    cpus = cpus or usable_cores()["cores"]
    labels = {"floats": f"sin and sqrt in place, {passes} passes over {floats:,} floats",
              "objects": f"* and + on {floats // 10:,} Python floats (dtype=object)",
              "matmul": f"matrix product {matrix}x{matrix} (BLAS)"}
    shown = table(["NumPy job", "one job alone: cores used:", "2 threads:", "4 threads:", "ceiling here:"],
                  [(labels[name], cores_used(result, "sequential"), f"x{best_speedup(result, 'threads', 2):.2f}",
                    f"x{best_speedup(result, 'threads', 4):.2f}", f"x{min(4, cpus)}") for name, result in runs.items()],
                  digits=2)
    note = ("Speed-up: jobs per second of the fastest run against one job alone. Published: no timings "
            "(the article cites NumPy's documentation)." + busy_note(runs["floats"], lead=" "))
    return Markdown(shown.data + "\n\n" + note)


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


def blas_table(found, cpus=None):
    """`blas_threads` as a table, and what its first row says about this BLAS and Python threads."""
    cpus = cpus or usable_cores()["cores"]
    shown = table(["BLAS thread variables in the child", "one product: wall (ms):", "cores used:"],
                  [("left unset" if label == "defaults" else "OPENBLAS/MKL/OMP_NUM_THREADS=1",
                    f["wall_s"] * 1000 if f else "no answer within 60 s", f["cores"] if f else None)
                   for label, f in found.items()], digits=[0, 1, 2])
    own = (found.get("defaults") or {}).get("cores")
    if own is None:
        verdict = "The child gave no answer, so this BLAS's threading is not known here."
    elif own > 1.3:
        verdict = (f"This BLAS threads each product ({own:.2f} cores for one): Python threads on top of it "
                   f"oversubscribe {cpus} cores. Set the variables to 1 when you parallelise yourself.")
    else:
        verdict = (f"This BLAS computes each product on the caller's thread ({own:.2f} cores for one), so the "
                   f"variables change nothing here and Python threads are what spread products over the {cpus} "
                   f"cores. With OpenBLAS or MKL the first row would read about {cpus} cores, and 4 Python threads "
                   f"would run 4 x {cpus} busy threads on {cpus} cores.")
    return Markdown(shown.data + "\n\n" + verdict)
