"""Who did what, and when: lecture 5's record of tasks finishing, failing and being
cancelled, in seconds since the timeline was made."""

import time


class Timeline:
    """Entries (seconds since creation, who, what), added with note()."""

    def __init__(self):
        self.start, self.entries = time.perf_counter(), []

    def note(self, who, what):
        self.entries.append((round(time.perf_counter() - self.start, 2), who, what))

    def when(self, who, what):
        """The time of the first entry of `who` whose text starts with `what`, or None."""
        return next((at for at, name, text in self.entries if name == who and text.startswith(what)), None)

    def __repr__(self):
        return "\n".join(f"{at:5.2f} s  {who:<8} {what}" for at, who, what in self.entries)
