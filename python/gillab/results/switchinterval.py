"""%switchinterval's result object: lookups by interval and interpreter."""

import copy

from .result import Result

# A duration as the magics' options take it: a number with us, ms or s, or plain seconds.
_UNITS = (("us", 1e6), ("\u00b5s", 1e6), ("ms", 1e3), ("s", 1.0))


def seconds(duration):
    """'5ms' -> 0.005, '100us' -> 0.0001, 0.005 -> 0.005; ValueError naming what is accepted."""
    if not isinstance(duration, str):
        return float(duration)
    for suffix, divisor in _UNITS:
        if duration.endswith(suffix) and len(duration) > len(suffix):
            number, divisor = duration[:-len(suffix)], divisor
            break
    else:
        number, divisor = duration, 1.0
    try:
        return float(number) / divisor  # divided, as the C++ parser does: 200 / 1e6 is nearest 0.0002
    except ValueError:
        raise ValueError("bad duration '%s'; accepted: a number with us, ms or s (5ms, 0.2ms, 1s) "
                         "or plain seconds (0.005)" % duration) from None


class SwitchintervalResult(Result):
    """What `%switchinterval` measured. After `--sweep`: per switch interval, how late a probe
    thread got the GIL behind a spinning thread; after `--timeline`: who held the GIL when.
    Each lookup takes the `interval` ('5ms', '0.2ms' or seconds) and, after a sweep, `python`
    (an interpreter as --python named it, or its label; None is the first measured). An
    interval that was not measured is a KeyError. Fields depend on the mode: mode, runs,
    interpreters, intervals_ms (sweep); timelines, duration_s (timeline); interval_ms (show, set)."""

    def run(self, interval, python=None):
        """Everything measured at one interval, as a dict."""
        return copy.deepcopy(self._run(interval, python))

    def median(self, interval, python=None):
        """Median lateness in ms at one interval."""
        return self._run(interval, python)["median_ms"]

    def p95(self, interval, python=None):
        """95th percentile lateness in ms at one interval."""
        return self._run(interval, python)["p95_ms"]

    def worst(self, interval, python=None):
        """Largest lateness in ms at one interval."""
        return self._run(interval, python)["max_ms"]

    def rate(self, interval, python=None):
        """The spinner's steps per second at one interval."""
        return self._run(interval, python)["spinner_rate"]

    def handovers(self, interval, python=None):
        """The probe's acquisitions of the GIL at one interval."""
        return self._run(interval, python)["handovers"]

    def slices(self, interval, python=None):
        """GIL turn lengths in ms, in order (after --timeline)."""
        return list(self._run(interval, python)["slices"])

    def lanes(self, interval, python=None):
        """Per thread, the spans it held the GIL (after --timeline):
        [{'lane', 'segments': [{'start_ms', 'end_ms'}], 'held_ms'}]."""
        return copy.deepcopy(self._run(interval, python)["lanes"])

    def _run(self, interval, python):
        wanted_ms = seconds(interval) * 1e3
        timelines = self._data("timelines")
        if timelines is None and self._data("runs") is None:
            raise KeyError("this result has no measurements (it only showed or set the interval)")
        if timelines is not None and python is not None:
            raise KeyError("a timeline is measured in the kernel only")
        if timelines is not None:
            runs = timelines
        else:
            index = self._interpreter_index(python)
            runs = self._data("runs") if index is None else self._data("interpreters")[index]["runs"]
        for run in runs:
            if abs(run["interval_ms"] - wanted_ms) < 1e-6:
                return run
        raise KeyError("no measurement at %s" % _label(wanted_ms))


def _label(ms):
    return "%g ms" % ms
