"""Lecture 6's dial: a sentence placing each measured median lateness against its switch
interval, which a waiter behind a busy holder waits out at least once (take_gil's timed wait),
and the yielding probe's turns split into those it took straight back and those it queued for."""

import math

from ..results.switchinterval import seconds


def _interval_ms(label):
    # Read as the result object reads it ('5ms', '100us', plain seconds): one parser for intervals.
    return seconds(label) * 1e3


# What a sweep's interval without a median means: its probe never began a timed turn inside the window
# (its thread first takes the GIL once behind the cruncher, which a loaded machine can delay past it).
NO_SAMPLE = "no sample (the probe got no turn inside its window: run the sweep again)"


def sweep_lines(result, intervals=("5ms", "1ms", "0.2ms")):
    """One line per interval of a sleeping-probe sweep: median, p95 and worst lateness, the probe's
    turns and the cruncher's rate against its rate at 5 ms."""
    lines = []
    for label in intervals:
        run = result.run(label)
        if run["median_ms"] is None:
            lines.append(f"{label:>6}: {NO_SAMPLE}")
            continue
        rate = run.get("rate_vs_default")
        lines.append(f"{label:>6}: median {run['median_ms']:6.2f} ms, p95 {run['p95_ms']:6.2f} ms, worst "
                     f"{run['max_ms']:6.2f} ms, {run['handovers']:5d} turns of the probe, cruncher at "
                     + ("-" if rate is None else f"{rate:.2f}x") + " its 5 ms rate")
    return "\n".join(lines)


def median_text(result, label):
    """A sweep's median lateness at `label` as the lectures print it, or that there was no sample."""
    median = result.median(label)
    return NO_SAMPLE if median is None else f"{median:.2f} ms"


def floor_sentence(result, intervals=("5ms", "1ms", "0.2ms")):
    """Where the median lateness of `result` (a %switchinterval sweep) sits against each
    interval, and what a median below its interval means; true whatever the run shows."""
    placed, below, measured = [], [], 0
    for label in intervals:
        median = result.median(label)
        if median is None:
            placed.append(f"{label} {NO_SAMPLE}")
            continue
        measured += 1
        side = "above" if median >= _interval_ms(label) else "below"
        placed.append(f"{label} {median:.2f} ms ({side})")
        if side == "below":
            below.append(label)
    text = "Your median lateness against each interval: " + ", ".join(placed) + ". "
    if not measured:
        return text
    if not below:
        return text + "Every median is above its interval: each waiter sat out at least one whole interval."
    return (text + f"Below the interval at {', '.join(below)}: there the probe often found the GIL free when "
            "it asked, so it never had to wait an interval out.")


def turn_split(result, label):
    """The yielding probe's waits at interval `label` in two groups, from its histogram of waits
    (buckets a power of two of microseconds wide), split at the bucket edge nearest half the
    interval: (straight-back share, queued share, the edge in ms, waits counted), or None without a
    histogram. A turn taken straight back costs a wake-up, far under half an interval; a queued one
    costs about an interval."""
    interval = _interval_ms(label)
    buckets = (result.run(label).get("probe") or {}).get("wait_histogram") or []
    total = sum(bucket["count"] for bucket in buckets)
    if not total:
        return None
    edge_ms = 2.0 ** round(math.log2(interval / 2 * 1000)) / 1000   # bucket edges: 1, 2, 4 ... us
    back = sum(bucket["count"] for bucket in buckets if bucket["to_ms"] <= edge_ms)
    return back / total, 1 - back / total, edge_ms, total


def yield_sentence(result, intervals=("5ms", "50ms", "0.5ms")):
    """Each interval's turns of the yielding probe in its two groups, and which group its median
    reports; true whatever the run shows."""
    parts, split_at = [], []
    for label in intervals:
        split = turn_split(result, label)
        if split is None:
            continue
        back, queued, edge_ms, total = split
        parts.append(f"at {label}, of {total:,} turns {back:.0%} came straight back and {queued:.0%} queued "
                     f"(under or over {edge_ms:g} ms)")
        if min(back, queued) >= 0.2:
            split_at.append(label)
    if not parts:
        return "The probe kept no histogram of its waits here: the medians above are all there is."
    text = "Your turns: " + "; ".join(parts) + ". "
    if split_at:
        return text + (f"At {', '.join(split_at)} both groups are large, so the median lands in whichever is a "
                       "little larger and can jump between runs: read the two shares, not the median.")
    return text + "At every interval one group dominates, so each median reports that group."
