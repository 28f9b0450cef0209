"""Lecture 4's races from code: the interval sweep (a bare `hits += 1`, and the same update
routed through a helper function) under several switch intervals, and sentences about any
race result that say what the runs showed, whatever they showed."""

import statistics

from .tables import table

CALL_CELL = "hits = 0\ndef one_more(value):\n    return value + 1\nhits = one_more(hits)\n"
BARE_CELL = "hits = 0\nhits += 1\n"


def race(options, cell):
    """%%race run from code: the result object comes back without being displayed."""
    from IPython import get_ipython
    return get_ipython().run_cell_magic("race", options, cell)


def interval_sweep(intervals, threads, iterations, runs):
    """[{interval, call, bare, expected}]: updates lost in each run, per interval."""
    sweep = []
    for interval in intervals:
        options = (f"--modes unlocked --threads {threads} --iterations {iterations} --runs {runs} "
                   f"--switch-interval {interval}")
        with_call, in_place = race(options, CALL_CELL), race(options, BARE_CELL)
        sweep.append({"interval": interval, "call": with_call.run("unlocked")["lost_runs"],
                      "bare": in_place.run("unlocked")["lost_runs"], "expected": with_call.expected})
    return sweep


def _percent(n, expected):
    return 100 * n / expected


def sweep_table(sweep):
    """The sweep as a table: how many runs lost, and how much, per interval."""
    rows = []
    for row in sweep:
        call, bare, expected = row["call"], row["bare"], row["expected"]
        rows.append((row["interval"], f"{sum(1 for n in call if n > 0)} of {len(call)}",
                     f"{_percent(statistics.median(call), expected):.1f}% / {_percent(max(call), expected):.1f}%",
                     f"{sum(1 for n in bare if n > 0)} of {len(bare)}"))
    return table(["switch interval", "with the call: runs that lost:", "lost per run (median / worst):",
                  "`hits += 1`: runs that lost:"], rows)


def sweep_chart(sweep, title):
    """Every run's loss as a dot, per interval, for the two statements."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for offset, key, label, marker in [(-0.12, "call", "hits = one_more(hits)", "o"),
                                       (0.12, "bare", "hits += 1", "^")]:
        for x, row in enumerate(sweep):
            ax.scatter([x + offset] * len(row[key]), [_percent(n, row["expected"]) for n in row[key]], marker=marker,
                       color="C0" if key == "call" else "C1", alpha=0.7, label=label if x == 0 else None)
    ax.set_xticks(range(len(sweep)), [row["interval"] for row in sweep])
    ax.set_xlabel("switch interval")
    ax.set_ylabel("updates lost in one run (%)")
    ax.set_title(title)
    ax.legend()
    plt.show()


def bare_sentence(sweep):
    """What the bare `hits += 1` lost over the whole sweep, as a sentence for the lecture."""
    lost = [(row["interval"], n) for row in sweep for n in row["bare"] if n > 0]
    runs = sum(len(row["bare"]) for row in sweep)
    if not lost:
        return f"`hits += 1` lost nothing in any of its {runs} runs, at any interval."
    intervals = sorted({interval for interval, _ in lost}, key=[row["interval"] for row in sweep].index)
    return (f"`hits += 1` lost updates in {len(lost)} of its {runs} runs (at {', '.join(intervals)}): rare on 3.11, "
            "where this loop has no hand-over point between its read and its write, but not impossible.")


def runs_sentence(what, result, mode="unlocked", python=None):
    """What `what` lost over the runs of one mode of a %%race result, as a sentence that
    is true whatever the runs showed."""
    lost = [int(n) for n in result.run(mode, python=python)["lost_runs"]]
    losing = [n for n in lost if n > 0]
    if not losing:
        return f"{what} lost nothing in any of its {len(lost)} runs here."
    return (f"{what} lost updates in {len(losing)} of its {len(lost)} runs here, "
            f"up to {max(losing):,} of {result.expected:,} ({100 * max(losing) / result.expected:.1f}%).")


def cheapest_correct(result, modes=("lock", "batch", "per-thread"), python=None):
    """The correct mode (nothing lost in any run) with the lowest cost against the unlocked
    time, and that cost; (None, None) when no mode was correct."""
    correct = [(result.cost(mode, python=python), mode) for mode in modes
               if all(n == 0 for n in result.run(mode, python=python)["lost_runs"])]
    if not correct:
        return None, None
    cost, mode = min(correct)
    return mode, cost
