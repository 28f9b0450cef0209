"""%heartbeat's result object: the loop's raw series besides the table."""

import copy

from .result import Result


class HeartbeatResult(Result):
    """What `%%heartbeat` (or `%heartbeat stop`) measured: how late an asyncio loop's
    heartbeat came while the cell ran, and how long a probe thread waited for the GIL.
    `python` picks an interpreter as --python named it or by its label; None is the first
    measured. Series that were not measured (a line form's result) are empty lists. Fields:
    mode, every_ms, slow_ms, max_gap_ms, gil, gil_wait_ratio, interpreters, blame, ..."""

    def gaps(self, python=None):
        """Gaps between heartbeat ticks in ms, in order."""
        return list(self._figures(python).get("gaps_ms", []))

    def gil_waits(self, python=None):
        """How long each GIL acquisition of the probe waited, in ms, in order."""
        return list(self._figures(python).get("gil", {}).get("waits_ms", []))

    def blame(self):
        """What stalled the loop, most first: dicts of cause ('ran' or 'waited for the GIL'),
        holder, where, text, function, file, line, calls, label, stall_ms, share (of all
        stall), late_beats. Empty when nothing stalled it or blame was not measured."""
        return copy.deepcopy(self._data("blame", []))

    def _figures(self, python):
        index = self._interpreter_index(python) if python is not None else None
        return self._record["data"] if index is None else self._data("interpreters")[index]
