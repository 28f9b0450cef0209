"""Lecture 4's interval sweep: the same two races (a bare `counter += 1` and one
with a call between the read and the write) under several switch intervals."""

import statistics

from .tables import table

CALL_CELL = "counter = 0\ndef plus_one(x):\n    return x + 1\ncounter = plus_one(counter)\n"
BARE_CELL = "counter = 0\ncounter += 1\n"


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
        sweep.append({"interval": interval, "call": list(with_call.lost("unlocked")),
                      "bare": list(in_place.lost("unlocked")), "expected": with_call.expected})
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
                  "`counter += 1`: runs that lost:"], rows)


def sweep_chart(sweep, title):
    """Every run's loss as a dot, per interval, for the two statements."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for offset, key, label, marker in [(-0.12, "call", "counter = plus_one(counter)", "o"),
                                       (0.12, "bare", "counter += 1", "^")]:
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
    """What the bare `counter += 1` lost over the whole sweep, as a sentence for the lecture."""
    lost = [(row["interval"], n) for row in sweep for n in row["bare"] if n > 0]
    runs = sum(len(row["bare"]) for row in sweep)
    if not lost:
        return f"`counter += 1` lost nothing in any of its {runs} runs, at any interval."
    intervals = sorted({interval for interval, _ in lost}, key=[row["interval"] for row in sweep].index)
    return (f"`counter += 1` lost updates in {len(lost)} of its {runs} runs (at {', '.join(intervals)}): rare on 3.11, "
            "where this loop has no hand-over point between its read and its write, but not impossible.")
