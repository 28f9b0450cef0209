"""The switch interval (sys.setswitchinterval) as a runner may change it: for one scope only,
the interval it found put back on success, on error and on interrupt. The runners' one way to
set it, in the kernel and in a child interpreter alike (CPython 3.8+, standard library only);
the C++ side's is magics/instruments/switch_interval.
"""

import sys


class ScopedSwitchInterval:
    """with ScopedSwitchInterval(seconds) as interval: ...: saves the interval, sets `seconds`
    (None keeps it), interval.set(s) changes it inside, leaving restores the saved one."""

    def __init__(self, seconds=None):
        self._seconds = seconds
        self.saved_s = None

    def __enter__(self):
        self.saved_s = sys.getswitchinterval()
        if self._seconds is not None:
            self.set(self._seconds)
        return self

    def set(self, seconds):
        sys.setswitchinterval(seconds)

    def __exit__(self, *exc_info):
        sys.setswitchinterval(self.saved_s)
        return False
