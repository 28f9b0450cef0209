"""Errors as ipykernel reports them.

The stock shell names an error "<class 'ZeroDivisionError'>"; here shell.last_error is
[ename, evalue, traceback] with the class's name, and the kernel builds its error reply
from it. A UsageError (a bad magic argument) becomes a one-line error reply instead of
stderr text under an "ok" reply.
"""


def record(shell, etype, evalue, stb):
    shell.last_error = [getattr(etype, "__name__", str(etype)), str(evalue), stb]


def install(shell):
    def _showtraceback(etype, evalue, stb):
        record(shell, etype, evalue, stb)

    def show_usage_error(exc):
        shell.last_error = ["UsageError", str(exc), ["\x1b[0;31mUsageError\x1b[0m: " + str(exc)]]

    shell._showtraceback = _showtraceback
    shell.show_usage_error = show_usage_error
