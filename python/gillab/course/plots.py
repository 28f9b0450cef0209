"""Charts the lectures draw from result objects (matplotlib)."""

from .runs import best_speedup


def speedup_curves(curves, workers, ceiling, title, xlabel="workers", ceiling_label="ceiling"):
    """Speed-up against workers for each (label, results, mode) in `curves`, at the workers
    each measured, with the `ceiling` (a function of workers, or None) as a dashed line."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 3.6))
    for (label, results, mode), marker in zip(curves, "o^sdv"):
        ax.plot(*zip(*_measured(results, mode, workers)), marker=marker, label=label)
    if ceiling is not None:
        ax.plot(workers, [ceiling(w) for w in workers], linestyle="--", color="grey", label=ceiling_label)
    ax.set_xticks(workers)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("speed-up against sequential")
    ax.set_title(title)
    ax.legend()
    plt.show()


def _measured(results, mode, workers):
    """(workers, speed-up) for each of `workers` the results measured (one curve may stop sooner)."""
    points = []
    for count in workers:
        try:
            points.append((count, best_speedup(results, mode, count)))
        except KeyError:
            continue
    return points
