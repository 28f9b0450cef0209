"""%%race's result object: lookups by mode and interpreter."""

import copy

from .result import Result


class RaceResult(Result):
    """What `%%race` measured: per mode ('unlocked', 'lock', 'batch', ...) the updates its
    threads lost over several runs, under each interpreter. `python` picks an interpreter as
    --python named it ('3.13t', 'kernel') or by its label; None is the first measured. A mode
    that was not measured is a KeyError naming those that were. Fields: expected, check,
    statement, interpreters, runs, explanation, published, options."""

    def run(self, mode="unlocked", python=None):
        """Everything measured for one mode, as a dict: its figures and the runs behind them
        (lost_runs, lost_percent_runs, wall_runs_s)."""
        return copy.deepcopy(self._summary(mode, python))

    def lost(self, mode="unlocked", python=None):
        """Median updates lost over a mode's runs (a whole number when the counts are)."""
        summary = self._summary(mode, python)
        median = summary["lost_median"]
        whole = summary["lost_runs"] and isinstance(summary["lost_runs"][0], int)
        return int(median) if whole and median == int(median) else float(median)

    def lost_percent(self, mode="unlocked", python=None):
        """Median share of the expected updates lost, in %."""
        return self._summary(mode, python)["lost_percent_median"]

    def wall(self, mode="unlocked", python=None):
        """Median wall time of a mode's runs in seconds."""
        return self._summary(mode, python)["wall_median_s"]

    def cost(self, mode="lock", python=None):
        """A mode's median wall time over the unlocked median (None without unlocked runs)."""
        return self._summary(mode, python)["x_unlocked"]

    def _summary(self, mode, python):
        summary = self._data("interpreters")[self._interpreter_index(python)]["summary"]
        if mode not in summary:
            raise KeyError("mode '%s' was not measured; measured: %s" % (mode, ", ".join(summary)))
        return summary[mode]
