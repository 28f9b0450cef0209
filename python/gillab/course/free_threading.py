"""Lecture 6's free-threaded comparisons: the builds to compare, and the rows and tables of
two-thread scaling, single-thread cost and object ownership, each beside its published figure.
The measuring happens in child processes (child_scripts/, through children.run_json) or in
%%gilbench --python; this module only finds, collects and lays out."""

import sys

from IPython.display import Markdown

from . import published
from .children import run_json
from .tables import table


def find_builds(interpreters):
    """(free-threaded, default) executables from `%gilinfo --interpreters -o NAME`: the
    project's own builds first (one patch, configured twice), the default build of the same
    version as the free-threaded one; None for a build that is missing."""
    def pick(free_threaded, version=None):
        found = [p for p in interpreters.interpreters if "version" in p and p.get("executable")
                 and bool(p.get("free_threaded_build")) == free_threaded and (version is None or p["version"] == version)]
        found.sort(key=lambda p: p.get("origin") != "project_build")
        return found[0] if found else None

    free = pick(True)
    default = pick(False, free["version"]) if free else None
    return (free["executable"] if free else None), (default["executable"] if default else None), free


def scaling_rows(scaling, default, free):
    """One row per build from a `%%gilbench --python` result of 1 and 2 threads (weak scaling),
    plus the free-threaded build with PYTHON_GIL=1 (a child script: --python does not set it)."""
    def fastest(python, mode, workers):
        return next(r for r in scaling.runs if r["requested"] == python and r["mode"] == mode
                    and (mode == "sequential" or r["workers"] == workers))

    rows = []
    for label, python in ((("default build", default), ("free-threaded", free)) if free else
                          (("this kernel's CPython", "kernel"),)):
        if python is None:
            continue
        one, two = fastest(python, "sequential", 1), fastest(python, "threads", 2)
        build = next(i for i in scaling.interpreters if i["requested"] == python)["interpreter"]
        rows.append({"label": label, "version": build.get("version", sys.version.split()[0]),
                     "gil": build.get("gil_enabled", True), "one_s": one["wall_s"]["min"],
                     "one_cores": one["cores_used"], "two_cores": two["cores_used"],
                     "speedup": 2 * one["wall_s"]["min"] / two["wall_s"]["min"]})
    if free:
        found = run_json(free, "gil_back_on", gil="1")
        if found:
            rows.append(dict(found, label="free-threaded, PYTHON_GIL=1"))
    return rows


def scaling_table(rows):
    fig = published.figure("python_two_threads")
    shown = [(r["label"], r["version"], r["gil"], r["one_s"], r["one_cores"], r["two_cores"], f"x{r['speedup']:.2f}")
             for r in rows]
    cite = published.cite("python_two_threads", short=True).replace(",", "t,", 1)
    shown.append((f"published ({cite})", "3.13.7t", False, None, None, None, f"x{fig['free_threaded_speedup']}"))
    return table(["interpreter", "version", "GIL on", "one thread, fastest (s):", "cores it got:", "2 threads: cores:",
                  "2 threads: work per second:"], shown, digits=[0, 0, 0, 3, 2, 2, 0])


def single_thread_cost(default, free, n):
    """{loop: {"default": s, "free-threaded": s}}: the fastest of two alternating runs of each
    tight loop in each build (a busy moment hits both); empty without both builds."""
    times = {}
    if not (default and free):
        return times
    for _ in range(2):
        for label, python in (("default", default), ("free-threaded", free)):
            for loop, seconds in (run_json(python, "tight_loops", n) or {}).items():
                times.setdefault(loop, {})
                times[loop][label] = min(seconds, times[loop].get(label, float("inf")))
    return times


LOOP_LABELS = {"additions": "`total += i`", "calls": "`total += grow(box)` (a call and an attribute)"}


def single_thread_table(times, n):
    low, high = published.figure("free_threading_cost")["tight_loops_percent"]
    rows = [(f"{LOOP_LABELS[loop]}, {n:,} times", t["default"], t["free-threaded"],
             f"{100 * (t['free-threaded'] / t['default'] - 1):+.0f}%") for loop, t in times.items() if len(t) == 2]
    rows += [("published: two tight loops (3.13.7, Linux x86-64, 2 cores)", None, None, f"+{low}% to +{high}%"),
             ("published: pyperformance, 3.13 HOWTO", None, None, "about +40%"),
             ("published: pyperformance, 3.14 HOWTO", None, None, "+1% (macOS aarch64) to +8% (x86-64 Linux)")]
    return table(["one thread, tight loop", "default build (s):", "free-threaded (s):", "cost of free threading:"], rows)


def ownership(builds, n):
    """{build label: the ownership script's figures} for each (label, python, gil) of `builds`
    run without PYTHON_GIL; builds that gave no answer are left out."""
    found = {label: run_json(python, "ownership", n) for label, python, gil in builds if gil is None}
    return {label: figures for label, figures in found.items() if figures}


def ownership_table(found):
    foreign, shared = published.figure("foreign_objects"), published.figure("shared_objects")
    expected = {"default build": (f"+{foreign['gil_percent']}%", "x{}-{:.2f}".format(*shared["gil_speedup"])),
                "free-threaded": (f"+{foreign['free_threaded_percent']}%", "x{}-{}".format(*shared["free_threaded_speedup"]))}
    rows = []
    for label, (published_extra, published_shared) in expected.items():
        figures = found.get(label)
        measured = ((f"{100 * figures['foreign_extra']:+.1f}%",
                     f"x{figures['shared_speedup']:.2f} ({figures['two_cores']:.2f} cores)") if figures
                    else ("not measured here", "not measured here"))
        rows.append((label, measured[0], published_extra, measured[1], published_shared))
    return table(["build", "one thread reading another thread's objects, against its own:", "published:",
                  "two threads sharing objects: work per second against one:", "published:"], rows)


def build_marks_table(interpreters):
    """Every Python 3 interpreter of `%gilinfo --interpreters -o NAME`, asked in a child
    (child_scripts/build_marks.py) for its switch interval and free-threading marks."""
    rows = []
    for entry in interpreters.interpreters:
        if entry.get("executable") and str(entry.get("version", "")).startswith("3."):
            found = run_json(entry["executable"], "build_marks", timeout=30)
            if found:
                rows.append((entry["executable"], found["version"], found["switch_interval_s"], repr(found["abiflags"]),
                             found["py_gil_disabled"], found["gil_enabled"]))
    return table(["interpreter", "version", "getswitchinterval():", "sys.abiflags", "Py_GIL_DISABLED", "GIL on"], rows)


def builds(default, free):
    """(label, executable, PYTHON_GIL) of every build a comparison runs under, missing ones left out."""
    return [(label, python, gil) for label, python, gil in (
        ("default build", default, None), ("free-threaded", free, None), ("free-threaded, PYTHON_GIL=1", free, "1"))
        if python]


def _labelled(default, free):
    """(label, --python value) of the builds a `--python` result holds (the kernel without a free build)."""
    if not free:
        return [("this kernel", "kernel")]
    return [(label, python) for label, python in (("default build", default), ("free-threaded", free)) if python]


def waiting_table(sleeps, zlib_run, default, free):
    """Eight sleeps in eight threads and zlib in two, per build, beside the published rows."""
    sleeps_fig, zlib_fig = published.figure("sleeps"), published.figure("zlib")
    rows = [(label, sleeps.wall("sequential", python=python) / sleeps.wall("threads", 8, python=python),
             2 * zlib_run.wall("sequential", python=python) / zlib_run.wall("threads", 2, python=python))
            for label, python in _labelled(default, free)]
    rows += [("published, GIL build (3.13.7)", sleeps_fig["speedup"], zlib_fig["speedup"]),
             ("published, free-threaded (3.13.7t)", sleeps_fig["free_threaded_speedup"], None)]
    return table(["build", "8 sleeps in 8 threads:", "zlib, 2 threads (work per second):"], rows, digits=2)


def turns(yielding, default, free, intervals=("5ms", "0.5ms")):
    """{build label: {interval: {"median_ms", "p95_ms"}}} of a `--probe yield --python` sweep."""
    return {label: {i: {"median_ms": yielding.median(i, python=python), "p95_ms": yielding.p95(i, python=python)}
                    for i in intervals}
            for label, python in _labelled(default, free) if python != "kernel"}


def turns_table(found):
    """The yielding probe's waits per build beside the published default and free-threaded ones."""
    fig = published.figure("yield_probe")
    free_wait = f"about {fig['free_threaded_wait_ms']} ms"
    rows = [(interval, *(f"{f[interval]['median_ms']:.3f} ms ({f[interval]['p95_ms']:.3f})" for f in found.values()),
             f"{fig['rows'][interval]['median_ms']} ms", free_wait) for interval in ("5ms", "0.5ms")]
    shown = table(["switch interval:", *(f"{label}: median wait (p95):" for label in found),
                   "published, default 3.13.7:", "published, 3.13.7t:"], rows)
    if "free-threaded" not in found:
        return Markdown(shown.data + "\n\nNo free-threaded build measured here: its column is the published one.")
    return shown


def race_lines(race, default, free):
    """One line per build: the updates an unlocked and a locked %%race --python run lost."""
    def lost(python, mode):
        return " / ".join(f"{int(n):,}" for n in race.run(mode, python=python)["lost_runs"])

    lines = [f"{label:>14}: without a lock lost {lost(python, 'unlocked')} of {race.expected:,}; "
             f"with a lock {lost(python, 'lock')}" for label, python in _labelled(default, free) if python != "kernel"]
    if not free:
        lines.append("No free-threaded build here: the race above ran on this kernel only.")
    return "\n".join(lines)


def sharing_note(found):
    """A sentence when the free-threaded build's two sharing threads did not get two cores (a busy
    machine hides contention); empty otherwise."""
    free = found.get("free-threaded")
    if not free or free["two_cores"] >= 1.5:
        return ""
    return (f"Busy machine: the free-threaded build's two sharing threads kept {free['two_cores']:.2f} cores busy, "
            "so they mostly took turns on one, and contention needs both running at the same moment. "
            "Rerun this cell when the machine is quieter.")


def shared_objects(builds, n):
    """(label, what child_scripts/shared_objects.py found, or None) under each build, 4 threads x n;
    this kernel's own interpreter first, so the table has a row with the GIL on every machine."""
    return [(label, run_json(python, "shared_objects", n, gil=gil, timeout=120))
            for label, python, gil in [("this kernel", sys.executable, None)] + list(builds)]


def shared_objects_table(found):
    """What each build kept correct on shared built-in objects, as counts against the expected."""
    rows = [(f"{label} ({got['version']}, GIL {'on' if got['gil'] else 'off'})", f"{got['appended']:,}",
             f"{got['updated']:,}", f"{got['taken']:,} / {got['distinct']:,}", f"{got['expected']:,}")
            for label, got in found if got]
    return table(["build", "list.append calls kept", "dict entry read and written back",
                  "items taken from one shared iterator / distinct", "expected each"], rows)


def shared_objects_sentences(found):
    """One generated sentence per build: which of the three parts came out exact."""
    lines = []
    for label, got in found:
        if not got:
            continue
        checks = (("the appends", got["appended"] == got["expected"]),
                  ("the read-and-write-back", got["updated"] == got["expected"]),
                  ("the shared iterator", got["taken"] == got["distinct"] == got["expected"]))
        wrong = [part for part, ok in checks if not ok]
        lines.append(f"{label}: " + ("every count exact." if not wrong else "exact except " + ", ".join(wrong) + "."))
    return "\n".join(lines)
