"""%%gilbench's result object: lookups by mode, workers, jobs and interpreter."""

import copy

from .result import Result


class GilbenchResult(Result):
    """What `%%gilbench` measured: one run per configuration (mode, workers, --jobs value,
    interpreter). Each lookup names a configuration: `mode` ('sequential', 'threads',
    'processes', 'asyncio'), `workers` (a count, or 'default' / 'per-job' as typed), `jobs`
    (a --jobs value, when several were run) and `python` (an interpreter as --python named it,
    '3.13t' or 'kernel', or its label; None is the first measured). A configuration that was
    not measured is a KeyError naming it. Fields: runs, interpreters, results_match,
    mismatches, over_budget, budget_s, cpu_count, cores_limited_by, cores_why, preset,
    published_source, options."""

    def run(self, mode, workers=1, jobs=None, python=None):
        """Everything measured for one configuration, as a dict: its figures and the runs
        behind them (wall_runs_s, cpu_runs_s)."""
        return copy.deepcopy(self._run(mode, workers, jobs, python))

    def _run(self, mode, workers, jobs, python):
        index = self._interpreter_index(python)
        for run in self._data("runs", []):
            if run["interpreter_index"] != index or run["mode"] != mode:
                continue
            if jobs is not None and jobs not in (run["base_jobs"], run["jobs"]):
                continue
            if mode == "sequential" or _same_workers(run, mode, workers):
                return run
        raise KeyError("no run for mode '%s' with %s workers%s%s" % (
            mode, workers, "" if jobs is None else " and %s jobs" % jobs,
            "" if python is None else " under %s" % python))

    def speedup(self, mode, workers=1, jobs=None, python=None):
        """Jobs per second against sequential for one configuration (see run())."""
        return self._run(mode, workers, jobs, python)["speedup"]

    def wall(self, mode, workers=1, jobs=None, python=None):
        """Median wall time in seconds of one configuration (None when the run was stopped at --budget)."""
        return _median(self._run(mode, workers, jobs, python)["wall_s"])

    def cpu(self, mode, workers=1, jobs=None, python=None):
        """Median CPU time (user+system, children included) in seconds (None when stopped at --budget)."""
        return _median(self._run(mode, workers, jobs, python)["cpu_s"])

    def peak_rss_mib(self, mode, workers=1, jobs=None, python=None):
        """Peak RSS in MiB of the configuration run in a fresh interpreter (--memory), else None."""
        peak = self._run(mode, workers, jobs, python).get("peak_rss_bytes")
        return None if peak is None else peak / (1024.0 * 1024.0)

    def best(self, python=None):
        """(mode, workers) of the fastest configuration under one interpreter; None when no
        configuration finished (all stopped at --budget)."""
        index = self._interpreter_index(python)
        timed = [run for run in self._data("runs", []) if run["interpreter_index"] == index and run["wall_s"] is not None]
        if not timed:
            return None
        fastest = min(timed, key=lambda run: run["wall_s"]["median"])
        return fastest["mode"], fastest["workers"]


def _same_workers(run, mode, workers):
    if not isinstance(workers, str):
        return run["workers"] == workers
    if mode == "asyncio" and workers == "default":
        workers = "per-job"  # gather's default: no limit
    return run["workers_spec"] == workers


def _median(figures):
    return None if figures is None else figures["median"]
