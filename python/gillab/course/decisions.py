"""The course-wide decision table: for each kind of work, the choice the course
teaches and the student's own figures behind it, read from the lectures' key
results (key_results.keep). A row whose lecture has not run yet says which to run."""

from IPython.display import Markdown

from .key_results import load_all
from .tables import table


def _x(value):
    return f"{value:.2f}x"


# (situation, choice, lecture, evidence(figures of that lecture) -> text). Evidence raises
# KeyError when the lecture kept no such figure, TypeError when it kept None (not measured there).
SITUATIONS = [
    ("computing in pure Python, a second of work or more", "a process pool, about one worker per core", 2,
     lambda f: (f"8 jobs: {f['sequential_s']:.2f} s in a row, {f['best_processes_s']:.2f} s in "
                f"a pool of {f['best_processes_workers']}; threads at best {f['best_threads_s']:.2f} s")),
    ("computing in pure Python, under about 0.1 s in all", "plain sequential code", 2,
     lambda f: (f"starting 8 spawn workers took {f['spawn_startup_s'] * 1000:.0f} ms; {f['tiny_sequential_s'] * 1000:.0f} ms "
                f"of work took {f['tiny_pool_s'] * 1000:.0f} ms in a pool")),
    ("waiting on I/O: tens to hundreds of blocking calls", "a thread pool with max_workers sized to the waits", 3,
     lambda f: (f"{f['waits']:,} waits: {f['default_pool_s']:.2f} s in the default pool of {f['pool_workers']}, "
                f"{f['per_job_s']:.2f} s with one thread per wait")),
    ("thousands of waits at once, async libraries all the way", "asyncio", 3,
     lambda f: (f"{f['thousands']:,} waits: asyncio {f['thousands_asyncio_s']:.2f} s and {f['thousands_asyncio_rss_mb']:.0f} MB, "
                f"threads {f['thousands_threads_s']:.2f} s and {f['thousands_threads_rss_mb']:.0f} MB")),
    ("C code that releases the GIL (zlib, hashlib on large updates, NumPy float loops)",
     "threads, up to one per core", 1,
     lambda f: f"zlib in 2 threads: {_x(f['zlib_x2'])}; Python arithmetic in 8 threads: {_x(f['python_threads_x8'])}"),
    ("C code that holds the GIL (one long call, sorted(), dtype=object)",
     "a process: no switch interval can interrupt it", 6,
     lambda f: (f"one long C call kept a waiting thread out for up to {f['long_c_worst_ms']:.0f} ms "
                f"at the default 5 ms interval")),
    ("shared state that several threads update", "a lock around the whole read-modify-write, or per-thread results", 4,
     lambda f: (f"up to {f['worst_lost_percent']:.0f}% of updates lost without; a lock lost {f['lock_lost']} "
                f"at x{f['lock_cost']:.1f} the time, per-thread counters at x{f['per_thread_cost']:.1f}")),
    ("one thread computes in Python while another must answer quickly",
     "a smaller switch interval, measured again, with the reason written beside the setting", 6,
     lambda f: (f"p95 lateness {f['dial_p95_5ms_ms']:.2f} ms at 5 ms, {f['dial_p95_small_ms']:.2f} ms at 0.2 ms; the "
                f"computing thread ran at {f['dial_rate_small']:.2f}x its rate")),
    ("NumPy on large arrays of numbers", "threads, with one level of parallelism (BLAS threads or yours, not both)", 6,
     lambda f: (f"2 threads: {_x(f['numpy_floats_x2'])} on floats, {_x(f['numpy_objects_x2'])} on dtype=object")),
    ("pure-Python threads that must use several cores", "processes; a free-threaded build where every extension supports it", 6,
     lambda f: f"free-threaded build, 2 threads: {_x(f['free_threaded_x2'])}"),
    ("one blocking call inside async code", "its awaitable version, or asyncio.to_thread", 5,
     lambda f: (f"loop stood still {f['blocked_gap_ms']:.0f} ms with time.sleep, {f['awaited_gap_ms']:.0f} ms awaiting, "
                f"{f['offloaded_gap_ms']:.0f} ms through to_thread")),
]


def rows(results, lectures=None):
    """(situation, choice, evidence, lecture) for each situation, from `results`
    ({lecture: figures}); only those of `lectures` when given."""
    out = []
    for situation, choice, lecture, evidence in SITUATIONS:
        if lectures is not None and lecture not in lectures:
            continue
        if lecture not in results:
            text = f"not measured yet: run lecture {lecture}"
        else:
            try:
                text = evidence(results[lecture])
            except (KeyError, TypeError):
                text = f"not measured by lecture {lecture} on this machine"
        out.append((situation, choice, text, lecture))
    return out


def decision_table(folder=".", lectures=None):
    """The decision table as Markdown, from the key-results files in `folder` (the course's
    notebooks folder by default). `lectures` (e.g. [2]) keeps only those lectures' rows."""
    found = rows(load_all(folder), lectures)
    if not found:
        return Markdown("No situation of the decision table comes from those lectures.")
    return table(["your situation", "use", "from your own measurements", "lecture:"], found)
