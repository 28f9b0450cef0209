"""`%%gilwatch --exact`'s result object: every hand-over and every wait taken apart, besides
the lookups the sampled watch has."""

import copy

from .gilwatch import GilwatchResult


class GilwatchExactResult(GilwatchResult):
    """What `%%gilwatch --exact` traced: every GIL hand-over while the cell ran, forced and
    voluntary, and each wait for one cut into interval / holder / wake / take (in ms, adding up to
    the wait). Lookups take `name`, a thread's name (all threads of that name) or its ident; a
    thread the trace did not see is a KeyError naming those it saw. Fields: handovers, forced,
    voluntary, switches (CPython's own counter), switch_interval_ms, wall_s, threads (each with
    turn_ms and wait_ms: median, p95, max), lanes, waits, convoy, lost, parts_add_up, ..."""

    def waits(self, name=None, forced=None):
        """The waits that ended in a hand-over, in time order (the first 10,000: waits_kept says how
        many are kept): dicts of taker, giver, forced, asked_ms, took_ms, wait_ms and its parts
        interval_ms, holder_ms, wake_ms, take_ms.
        `name` keeps the thread(s)' own waits; `forced` True or False keeps one kind."""
        takers = None if name is None else {thread["name"] for thread in self._find("threads", name)}
        return [copy.deepcopy(wait) for wait in self._data("waits")
                if (takers is None or wait["taker"] in takers) and (forced is None or wait["forced"] == forced)]

    def parts(self, name=None, forced=None):
        """The waits' parts summed in ms, as waits(name, forced) picks them: a dict of interval,
        holder, wake, take and wait (their sum)."""
        picked = self.waits(name, forced)
        sums = {part: sum(wait[part + "_ms"] for wait in picked) for part in ("interval", "holder", "wake", "take")}
        sums["wait"] = sum(wait["wait_ms"] for wait in picked)
        return sums

    def blame(self, name):
        """Not recorded by --exact (it stamps hand-overs, not the holders' lines): KeyError; the
        sampled %%gilwatch gives blame."""
        raise KeyError("--exact records hand-overs, not the holders' lines; %%gilwatch without --exact gives blame")
