"""%%gilwatch's result object: per-thread lookups besides the table."""

import copy

from .result import Result


class GilwatchResult(Result):
    """What `%%gilwatch` (or `%gilwatch stop`) saw: which thread held the GIL, sampled while
    the cell ran. Each lookup takes `name`, a thread's name (all threads of that name) or its
    ident; a thread the watch did not see is a KeyError naming those it saw. Fields: mode,
    period_us, threads, lanes, blame, blame_on, frame_reads, frames_unreadable, ..."""

    def held_share(self, name):
        """The share of the wall time the thread(s) held the GIL, 0 to 1."""
        return sum(thread["held_share"] for thread in self._find("threads", name))

    def waiting_share(self, name):
        """The share of the wall time the thread(s) were proven waiting for the GIL (a lower
        bound); ValueError when waits were not measured."""
        threads = self._find("threads", name)
        if any(not isinstance(thread["waiting_share"], (int, float)) for thread in threads):
            raise ValueError("waits were not measured for %r" % (name,))
        return sum(thread["waiting_share"] for thread in threads)

    def turns(self, name):
        """How many turns the thread(s) held the GIL."""
        return sum(thread["turns"] for thread in self._find("threads", name))

    def blame(self, name):
        """Whom the thread(s) waited behind, longest first: dicts of holder, where, text,
        function, file, line, instruction, calls, seconds, share (of its blamed wait). Empty
        when the thread never waited; KeyError when blame was off (--no-blame, %gilwatch start)."""
        if "blame" not in self._record["data"]:
            raise KeyError("this result has no blame (--no-blame, or %gilwatch start)")
        idents = {thread["ident"] for thread in self._find("threads", name)}
        behind = [line for waiter in self._data("blame") if waiter["ident"] in idents for line in waiter["behind"]]
        return copy.deepcopy(sorted(behind, key=lambda line: line["seconds"], reverse=True))

    def segments(self, name):
        """Each turn of the thread(s) as {'start_ms', 'end_ms'} since the window opened, in order."""
        spans = [span for lane in self._find("lanes", name) for span in lane["segments"]]
        return copy.deepcopy(sorted(spans, key=lambda span: span["start_ms"]))

    def _find(self, key, who):
        if key not in self._record["data"]:
            raise KeyError("this result has no threads (a %gilwatch start result)")
        entries = self._data(key)
        if isinstance(who, int) and not isinstance(who, bool):
            found = [entry for entry in entries if entry.get("ident") == who]
        else:
            found = [entry for entry in entries if entry["name"] == str(who)]
        if not found:
            raise KeyError("no thread %r in this watch; threads: %s" % (who, ", ".join(entry["name"] for entry in entries)))
        return found
