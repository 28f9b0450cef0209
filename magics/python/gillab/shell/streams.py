"""sys.stdout and sys.stderr write straight through to fds 1 and 2, line-buffered.

The kernel captures those fds (kernel/output_capture.cpp), so Python's prints, threads,
child processes and C code all share one path to the notebook, in order.
"""

import io
import sys


def fd_stream(fd):
    return io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding="utf-8",
                            errors="backslashreplace", line_buffering=True)


def install():
    sys.stdout = sys.__stdout__ = fd_stream(1)
    sys.stderr = sys.__stderr__ = fd_stream(2)
