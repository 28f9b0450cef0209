"""sys.stdout and sys.stderr write straight through to fds 1 and 2, line-buffered.

The kernel captures those fds (kernel/output_capture.cpp), so Python's prints, threads,
child processes and C code all share one path to the notebook, in order. A cell may close
them, replace them or set them to None; within that cell the student's choice holds, and
repair() puts the kernel's own back after it so the next cell prints (the output capture
puts the descriptors themselves back).
"""

import io
import sys

_FDS = {"stdout": 1, "stderr": 2}
_own = {}


def fd_stream(fd):
    return io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding="utf-8",
                            errors="backslashreplace", line_buffering=True)


def install():
    for name, fd in _FDS.items():
        _own[name] = fd_stream(fd)
        setattr(sys, name, _own[name])
        setattr(sys, f"__{name}__", _own[name])


def repair():
    """After a cell: the kernel's streams in place again, a closed one made anew.
    Returns the names of those that needed it."""
    repaired = []
    for name, fd in _FDS.items():
        stream = _own.get(name)
        if stream is None:
            continue  # not installed: another kernel's streams are its own
        if stream.closed:
            stream = _own[name] = fd_stream(fd)
        if getattr(sys, name) is not stream or getattr(sys, f"__{name}__") is not stream:
            setattr(sys, name, stream)
            setattr(sys, f"__{name}__", stream)
            repaired.append(name)
    return repaired
