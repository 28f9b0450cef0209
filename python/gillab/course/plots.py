"""Charts the lectures draw from result objects (matplotlib)."""

from .runs import best_speedup


def speedup_curves(curves, workers, ceiling, title, xlabel="workers"):
    """Speed-up against workers for each (label, results, mode) in `curves`, with the
    `ceiling` (a function of workers, or None) as a dashed line."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for (label, results, mode), marker in zip(curves, "o^sdv"):
        ax.plot(workers, [best_speedup(results, mode, w) for w in workers], marker=marker, label=label)
    if ceiling is not None:
        ax.plot(workers, [ceiling(w) for w in workers], linestyle="--", color="grey", label="ceiling")
    ax.set_xticks(workers)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("speed-up against sequential")
    ax.set_title(title)
    ax.legend()
    plt.show()
