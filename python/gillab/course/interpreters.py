"""The line-up of interpreters a student can install today (lectures 3 and 6): Debian 12's 3.11
(this kernel's), the project's 3.13 and 3.13t, Debian unstable's 3.14 and 3.15 (run in their own
root under bubblewrap), all as `%gilinfo --interpreters -o NAME` found them; and what each changes,
measured in children of each: the start method a pool gets, one loop's time beside those built
alike, and whether the GIL comes back for an extension."""

import os
import pathlib
import subprocess
import tempfile

from .children import run_file
from .tables import table

# (name, where the course takes it from: %gilinfo's "origin", None for the kernel itself, the make target that brings it)
LINEUP = (("3.11", None, None),
          ("3.13", "project_build", "make free-threaded-python"),
          ("3.13t", "project_build", "make free-threaded-python"),
          ("3.14", "sid_root", "make sid-pythons"),
          ("3.15", "sid_root", "make sid-pythons"))


def _name(entry):
    return ".".join(entry["version"].split(".")[:2]) + ("t" if entry["free_threaded_build"] else "")


def lineup(interpreters):
    """{name: %gilinfo entry} of the line-up's interpreters that answered, in LINEUP's order."""
    found = {}
    for name, origin, _ in LINEUP:
        for entry in interpreters.interpreters:
            if "error" in entry or _name(entry) != name:
                continue
            if entry["kernel"] if origin is None else entry.get("origin") == origin:
                found[name] = entry
                break
    return found


def missing_lines(found):
    """One line per interpreter of the line-up not on this machine, naming what brings it."""
    return [f"{name}: not on this machine; `{target}` sets it up (its rows below are left out)"
            for name, _, target in LINEUP if name not in found]


def python_option(found, names=None):
    """The --python value for `names` (default: all found) that are on this machine."""
    return ",".join(found[name]["executable"] for name in (names or found) if name in found)


def built_with(entry):
    """How `entry`'s interpreter was compiled, as %gilinfo found it: its vendor and whether it has
    profile-guided (PGO) and link-time (LTO) optimisation. Two rows with the same text differ in
    version; two with different texts differ in build as well."""
    build = entry.get("build") or {}
    options = "+".join(name for name, key in (("PGO", "pgo"), ("LTO", "lto")) if build.get(key)) or "no PGO/LTO"
    return f"{build.get('vendor') or 'project or own build'}, {options}"


def start_method_table(found):
    rows = [(name, entry["version"], built_with(entry), entry["default_start_method"], "on" if entry["gil_enabled"] else "off",
             entry["switch_interval_ms"], entry["found_in"]) for name, entry in found.items()]
    return table(["interpreter", "version", "built with", "default start method", "GIL", "switch interval (ms):", "found in"],
                 rows, digits=1)


def pool_startup_rows(pools, found):
    """(name, start method, wall of 2 tiny jobs in a fresh 2-worker pool, s) per interpreter of a
    `%%gilbench --modes processes` result: nearly all of that wall is starting the pool."""
    rows = []
    for name, entry in found.items():
        try:
            wall = pools.wall("processes", 2, python=entry["executable"])
        except KeyError:
            continue
        rows.append((name, entry["default_start_method"], wall))
    return rows


UNGUARDED = """
from concurrent.futures import ProcessPoolExecutor

def double(n):
    return 2 * n

with ProcessPoolExecutor(max_workers=2) as pool:
    print("doubled:", list(pool.map(double, [1, 2, 3])))
"""


def unguarded_runs(found, names=("3.11", "3.13", "3.14")):
    """{name: ChildRun} of a script that starts a pool at its top level, with no `__main__` guard,
    under each of `names` found, with that interpreter's default start method."""
    return {name: run_file(UNGUARDED, python=found[name]["executable"], name="no_guard.py", timeout=60)
            for name in names if name in found}


def speed_rows(speeds, found):
    """(name, built with, median s of one single-thread job, against the fastest built alike) per
    interpreter of a `%%gilbench --modes sequential --jobs 1` result: a ratio only between
    interpreters compiled the same way, so that it measures the version, not the build."""
    walls = {}
    for name, entry in found.items():
        try:
            walls[name] = speeds.wall("sequential", 1, python=entry["executable"])
        except KeyError:
            continue
    builds = {name: built_with(found[name]) + (" (free-threaded)" if found[name].get("free_threaded_build") else "")
              for name in walls}
    rows = []
    for name, wall in walls.items():
        alike = [walls[other] for other in walls if builds[other] == builds[name] or
                 (name, other) in (("3.13t", "3.13"), ("3.13", "3.13t"))]
        fastest = min(alike)
        rows.append((name, builds[name], wall, f"{wall / fastest:.2f}x" if len(alike) > 1 else "alone"))
    return rows


def alike_spread_percent(rows, name):
    """How much slower, in percent, the slowest interpreter built like `name` ran than the fastest
    of them, from speed_rows; None when `name` has no row or nothing else was built alike."""
    build = {row[0]: row[1] for row in rows}.get(name)
    walls = [wall for _, built, wall, _ in rows if built == build]
    return 100 * (max(walls) / min(walls) - 1) if len(walls) > 1 else None


def free_threading_cost(rows):
    """3.13t's single-thread cost against 3.13 in percent, from speed_rows; None without both."""
    walls = {row[0]: row[2] for row in rows}
    if "3.13" in walls and "3.13t" in walls:
        return 100 * (walls["3.13t"] / walls["3.13"] - 1)
    return None


EXTENSION = r"""
#include <Python.h>
static PyObject *answer(PyObject *self, PyObject *unused) { return PyLong_FromLong(42); }
static PyMethodDef methods[] = {{"answer", answer, METH_NOARGS, NULL}, {NULL, NULL, 0, NULL}};
/* No Py_mod_gil slot: the module does not say it can run without the GIL. */
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "undeclared", NULL, 0, methods};
PyMODINIT_FUNC PyInit_undeclared(void) { return PyModule_Create(&module); }
"""

IMPORT_IT = """
import sys, warnings
warnings.simplefilter("always")
print("before import: GIL", "on" if sys._is_gil_enabled() else "off")
import undeclared
print("after import: GIL", "on" if sys._is_gil_enabled() else "off", "| answer", undeclared.answer())
"""


def _build_extension(python, folder):
    """Compiles EXTENSION for `python` (its own headers and suffix) into `folder`; an error line or None."""
    ask = "import sysconfig; print(sysconfig.get_paths()['include']); print(sysconfig.get_config_var('EXT_SUFFIX'))"
    include, suffix = subprocess.run([python, "-c", ask], capture_output=True, text=True, check=True).stdout.split()
    source = pathlib.Path(folder, "undeclared.c")
    source.write_text(EXTENSION)
    done = subprocess.run(["cc", "-shared", "-fPIC", "-O1", f"-I{include}", str(source), "-o",
                           str(pathlib.Path(folder, "undeclared" + suffix))], capture_output=True, text=True)
    return done.stderr.strip().splitlines()[-1] if done.returncode else None


def gil_comes_back(free):
    """{"default": ChildRun, "PYTHON_GIL=0": ChildRun} of importing an extension that declares
    nothing about the GIL under the free-threaded `free`, or {"error": line} when it cannot be built."""
    with tempfile.TemporaryDirectory(prefix="gillab-extension-") as folder:
        problem = _build_extension(free, folder)
        if problem:
            return {"error": problem}
        pathlib.Path(folder, "import_it.py").write_text(IMPORT_IT)
        runs = {}
        for label, gil in (("default", None), ("PYTHON_GIL=0", "0")):
            env = {k: v for k, v in os.environ.items() if k != "PYTHON_GIL"}
            if gil is not None:
                env["PYTHON_GIL"] = gil
            done = subprocess.run([free, "import_it.py"], capture_output=True, text=True, cwd=folder, env=env, timeout=60)
            runs[label] = done
        return runs


def warning_text(run):
    """The RuntimeWarning a free-threaded build prints when an import turns the GIL on, if any."""
    lines = [line.strip() for line in run.stderr.splitlines() if "GIL" in line]
    return " ".join(lines) or None
