"""Figures read from %%gilbench result objects.

On a shared machine a neighbour can slow a run down, never speed it up, so the
fastest run of a configuration is the best estimate of what the hardware does.
"""


def _run(results, mode, workers):
    for result in results if isinstance(results, (list, tuple)) else [results]:
        for run in result.runs:
            if run["mode"] == mode and (mode == "sequential" or run["workers"] == workers):
                return run
    raise KeyError(f"no run for {mode} with {workers} workers")


def fastest(results, mode, workers=1):
    """Wall seconds of the fastest run of (mode, workers). `results` may be a list of
    results holding the same jobs measured in several cells."""
    return _run(results, mode, workers)["wall_s"]["min"]


def best_speedup(results, mode, workers=1):
    """The magic's own speed-up of (mode, workers), the figure its table shows
    (GilbenchResult.speedup: jobs per second of the median run against sequential's median
    run), from the first of `results` that measured it."""
    for result in results if isinstance(results, (list, tuple)) else [results]:
        try:
            speedup = result.speedup(mode, workers)
        except KeyError:
            continue
        if speedup is not None:
            return speedup
    return _speedup_across(results, mode, workers)


def _speedup_across(results, mode, workers):
    """The same definition when sequential was measured by another of `results` (the same jobs
    in another cell): jobs per second of the median runs."""
    try:
        run, sequential = _run(results, mode, workers), _run(results, "sequential", 1)
    except KeyError:
        run = sequential = {}
    if not run.get("wall_s") or not sequential.get("wall_s"):
        raise KeyError(f"no speed-up for {mode} with {workers} workers")
    return (run["jobs"] / run["wall_s"]["median"]) / (sequential["jobs"] / sequential["wall_s"]["median"])


def cores_used(results, mode, workers=1):
    """CPU seconds over wall seconds (medians) of one configuration: the cores it kept busy."""
    for result in results if isinstance(results, (list, tuple)) else [results]:
        for row in result.rows:
            if row["mode"] == mode and (mode == "sequential" or row["workers"] == workers):
                return row["cores_used"]
    raise KeyError(f"no row for {mode} with {workers} workers")


def busy_note(results, lead="", least_share=0.7):
    """A sentence (after `lead`) when sequential code got less than `least_share` of a core:
    other programs were using the CPUs, so parallel speed-ups are understated. An empty string
    on a quiet machine, so a lecture prints it only when the measurement flags noise."""
    share = cores_used(results, "sequential")
    if share >= least_share:
        return ""
    return lead + (f"Note: the machine was busy during this measurement: sequential code got only {share:.2f} of "
                   "a core, so speed-ups measured now understate what an idle machine gives. Rerun when it is quieter.")


def wall_at_least(result, mode, workers_spec, jobs):
    """(seconds, complete) for one configuration: its median wall time and True; or, when its run
    outlived --budget (or was not started because a smaller job count already had), the budget and
    False, a lower bound on what the run would have taken."""
    for run in result.runs:
        if run["mode"] == mode and str(run["workers_spec"]) == str(workers_spec) and run["jobs"] == jobs:
            if run["over_budget"] or run["skipped"] or run["wall_s"] is None:
                return result.budget_s, False
            return run["wall_s"]["median"], True
    raise KeyError(f"no run for {mode} with {workers_spec} workers and {jobs} jobs")
