"""The course-wide decision table: for each kind of work, the choice the course
teaches and the student's own figures behind it, read from the lectures' key
results (key_results.keep). A row whose lecture has not run yet says which to run;
a row whose figures do not bear its choice out says so, beside the figures."""

from IPython.display import Markdown

from .key_results import load_all
from .tables import table


def _x(value):
    return f"{value:.2f}x"


def _threads_s(f):
    """The thousands of threads' time, and "at least " when the run was stopped at its budget
    (the time kept is then the budget, a lower bound)."""
    return f["thousands_threads_s"], "" if f.get("thousands_threads_complete", True) else "at least "


def _boundary_choice(f):
    """threads for hundreds of waits, asyncio for thousands: where, your lecture 3 run says"""
    # Where one thread per wait stops keeping up with asyncio, in the student's own run (lecture 3).
    time_ratio = _threads_s(f)[0] / f["thousands_asyncio_s"]
    memory_ratio = f["thousands_threads_rss_mb"] / f["thousands_asyncio_rss_mb"]
    if time_ratio > 1.5 or memory_ratio > 1.5:
        return f"threads (one per wait) up to {f['waits']:,} waits; asyncio by {f['thousands']:,}"
    return f"threads still kept up at {f['thousands']:,} waits here: no boundary found below that"


def _boundary_evidence(f):
    threads_s, bound = _threads_s(f)
    return (f"one thread per wait took {f['per_job_s'] / f['asyncio_s']:.1f}x asyncio's time at {f['waits']:,} waits, "
            f"{bound}{threads_s / f['thousands_asyncio_s']:.1f}x at {f['thousands']:,}, with "
            f"{f['thousands_threads_rss_mb'] / f['thousands_asyncio_rss_mb']:.1f}x its memory")


def _start_methods(f):
    text = (f"starting 8 workers took {f['spawn_startup_s'] * 1000:.0f} ms under spawn, "
            f"{f['fork_startup_s'] * 1000:.0f} ms under fork")
    if f.get("unguarded_error"):
        text += f"; the file without the guard stopped with {f['unguarded_error']}"
    return text


# Each row: (situation, choice, lecture, evidence, doubt). `choice` is text, or a function of the
# lecture's figures; evidence(figures) -> text; doubt(figures) -> None when the figures bear the choice
# out, else why they do not. Both raise KeyError when the lecture kept no such figure, TypeError when
# it kept None (not measured there).
SITUATIONS = [
    ("computing in pure Python, a second of work or more", "a process pool, about one worker per core", 2,
     lambda f: (f"8 jobs: {f['sequential_s']:.2f} s in a row, {f['best_processes_s']:.2f} s in "
                f"a pool of {f['best_processes_workers']}; threads at best {f['best_threads_s']:.2f} s"),
     lambda f: (None if f["best_processes_s"] < 0.9 * min(f["sequential_s"], f["best_threads_s"]) else
                "the pool was not faster here (one free CPU, or a busy machine)")),
    ("computing in pure Python, less work than a pool's start-up repays", "plain sequential code", 2,
     lambda f: (f"starting 8 spawn workers took {f['spawn_startup_s'] * 1000:.0f} ms, so on {f['cpus']} CPUs a pool "
                f"can win only above about {f['spawn_startup_s'] / (1 - 1 / f['cpus']):.2f} s of work; "
                f"{f['tiny_sequential_s'] * 1000:.0f} ms of work took {f['tiny_pool_s'] * 1000:.0f} ms in a pool"),
     lambda f: None if f["tiny_pool_s"] > f["tiny_sequential_s"] else "the pool was not slower here"),
    ("starting worker processes at all",
     "worker functions at the top of a module, and the pool started under `if __name__ == \"__main__\":`; "
     "spawn (macOS, Windows, and forkserver from 3.14 on Linux) imports the main module again in every worker", 2,
     _start_methods, lambda f: None),
    ("waiting on I/O: hundreds of blocking calls", "a thread pool with max_workers sized to the waits", 3,
     lambda f: (f"{f['waits']:,} waits: {f['default_pool_s']:.2f} s in the default pool of {f['pool_workers']}, "
                f"{f['per_job_s']:.2f} s with one thread per wait"),
     lambda f: (None if f["waits"] <= f["pool_workers"] or f["per_job_s"] < 0.8 * f["default_pool_s"] else
                "sizing the pool to the waits did not help here")),
    ("where hundreds of waits become thousands", _boundary_choice, 3, _boundary_evidence, lambda f: None),
    ("thousands of waits at once, async libraries all the way", "asyncio", 3,
     lambda f: (f"{f['thousands']:,} waits: asyncio {f['thousands_asyncio_s']:.2f} s and {f['thousands_asyncio_rss_mb']:.0f} MB, "
                f"threads {_threads_s(f)[1]}{_threads_s(f)[0]:.2f} s and {f['thousands_threads_rss_mb']:.0f} MB"),
     lambda f: (None if (f["thousands_asyncio_s"] <= _threads_s(f)[0]
                         or f["thousands_asyncio_rss_mb"] < f["thousands_threads_rss_mb"]) else
                "threads were as fast and as small here")),
    ("C code that releases the GIL (zlib, hashlib on large updates, NumPy float loops)",
     "threads, up to one per core", 1,
     lambda f: f"zlib in 2 threads: {_x(f['zlib_x2'])}; Python arithmetic in 8 threads: {_x(f['python_threads_x8'])}",
     lambda f: None if f["zlib_x2"] > 1.2 else "zlib gained nothing from a second thread here (one free CPU?)"),
    ("C code that holds the GIL (one long call, sorted(), dtype=object)",
     "a process (no switch interval can interrupt it); for dtype=object, a numeric dtype first, then threads", 6,
     lambda f: (f"one long C call kept a waiting thread out for up to {f['long_c_worst_ms']:.0f} ms "
                f"at the default 5 ms interval"),
     lambda f: None if f["long_c_worst_ms"] > 10 else "no call here kept a waiting thread out past two intervals"),
    ("shared state that several threads update", "a lock around the whole read-modify-write, or per-thread results", 4,
     lambda f: (f"up to {f['worst_lost_percent']:.0f}% of updates lost without; a lock lost {f['lock_lost']} "
                f"at x{f['lock_cost']:.1f} the time, per-thread counters at x{f['per_thread_cost']:.1f}"),
     lambda f: (("a lock lost updates here: report it" if f["lock_lost"] else None) if f["worst_lost_percent"] > 0 else
                "nothing was lost unlocked in this run, which proves nothing (lecture 4)")),
    ("one thread computes in Python while another must answer quickly",
     ("a shorter switch interval: as short as the waiting thread's p95 needs, as long as the computing "
      "thread's rate, measured at that setting (lecture 6's sweep), can afford"), 6,
     lambda f: (f"p95 lateness {f['dial_p95_5ms_ms']:.2f} ms at 5 ms, {f['dial_p95_small_ms']:.2f} ms at 0.2 ms; the "
                f"computing thread ran at {f['dial_rate_small']:.2f}x its rate"),
     lambda f: ("the shorter interval did not shorten the tail here" if f["dial_p95_small_ms"] >= f["dial_p95_5ms_ms"] else
                f"the computing thread lost {1 - f['dial_rate_small']:.0%} of its rate" if f["dial_rate_small"] <= 0.8 else
                None)),
    ("NumPy on large arrays of numbers", "threads, with one level of parallelism (BLAS threads or yours, not both)", 6,
     lambda f: (f"2 threads: {_x(f['numpy_floats_x2'])} on floats, {_x(f['numpy_objects_x2'])} on dtype=object"),
     lambda f: None if f["numpy_floats_x2"] > 1.2 else "floats gained nothing from a second thread here (one free CPU?)"),
    ("pure-Python threads that must use several cores", "processes; a free-threaded build where every extension supports it", 6,
     lambda f: f"free-threaded build, 2 threads: {_x(f['free_threaded_x2'])}",
     lambda f: None if f["free_threaded_x2"] > 1.2 else "the free-threaded build gained nothing from a second thread here"),
    ("one blocking call inside async code", "its awaitable version, or asyncio.to_thread", 5,
     lambda f: (f"loop stood still {f['blocked_gap_ms']:.0f} ms with time.sleep, {f['awaited_gap_ms']:.0f} ms awaiting, "
                f"{f['offloaded_gap_ms']:.0f} ms through to_thread"),
     lambda f: None if f["offloaded_gap_ms"] < f["blocked_gap_ms"] / 3 else "to_thread left the loop stalled about as long"),
    ("Python computation inside a coroutine", "slices with `await asyncio.sleep(0)` between them, or a process", 5,
     lambda f: (f"awaiting coroutines that never suspend: the loop stood still {f['inline_await_gap_ms']:.0f} ms; "
                f"with asyncio.sleep(0) between slices, {f['yielding_await_gap_ms']:.0f} ms"),
     lambda f: (None if f["yielding_await_gap_ms"] < f["inline_await_gap_ms"] / 3 else
                "yielding between slices did not shorten the stall here")),
    ("several tasks that must fail together", "asyncio.TaskGroup (3.11+); before 3.11, gather and cancel the rest yourself", 5,
     lambda f: (f"gather left a sibling running until {f['gather_feed_finished_s']:.2f} s; TaskGroup cancelled it at "
                f"{f['task_group_cancelled_s']:.2f} s"),
     lambda f: (None if f["task_group_cancelled_s"] < f["gather_feed_finished_s"] else
                "TaskGroup did not end the sibling sooner here")),
]


def _row(results, situation, choice, lecture, evidence, doubt):
    unmeasured = choice if isinstance(choice, str) else choice.__doc__
    if lecture not in results:
        return situation, unmeasured, f"not measured yet: run lecture {lecture}"
    figures = results[lecture]
    try:
        chosen = choice if isinstance(choice, str) else choice(figures)
        text = evidence(figures)
        why_not = doubt(figures)
    except (KeyError, TypeError, ZeroDivisionError):
        return situation, unmeasured, f"not measured by lecture {lecture} on this machine"
    if why_not:
        text += f". **Your run does not support this choice:** {why_not}; measure the real work before you choose"
    return situation, chosen, text


def rows(results, lectures=None):
    """(situation, choice, evidence, lecture) for each situation, from `results`
    ({lecture: figures}); only those of `lectures` when given."""
    return [_row(results, *spec) + (spec[2],) for spec in SITUATIONS if lectures is None or spec[2] in lectures]


def decision_table(folder=".", lectures=None):
    """The decision table as Markdown, from the key-results files in `folder` (the course's
    notebooks folder by default). `lectures` (e.g. [2]) keeps only those lectures' rows."""
    found = rows(load_all(folder), lectures)
    if not found:
        return Markdown("No situation of the decision table comes from those lectures.")
    return table(["your situation", "use", "from your own measurements", "lecture:"], found)
