"""The limits a graded notebook runs under, and the reason a limit gives when
it ends a cell.

Time and output limits hold in both modes. The sandbox adds limits on
processes (threads count too: Linux's RLIMIT_NPROC counts tasks), file size,
CPU time and the size of its two tmpfs folders; the address-space limit holds
in both modes when it is set. A limit shows itself in the cell as the error
Python raises when it is reached (MemoryError, BlockingIOError EAGAIN on fork,
"can't start new thread", OSError EFBIG or ENOSPC), or as the kernel killed by
SIGXCPU; `reasons` turns those into one line each for the report.
"""

import errno
import signal
from dataclasses import dataclass

MIB = 2**20


@dataclass
class Limits:
    cell_timeout: float = 30.0
    notebook_timeout: float = 600.0
    max_output_bytes: int = 1_000_000  # per cell
    startup_timeout: float = 60.0
    interrupt_grace: float = 10.0  # after an interrupt, for the cell to end before the kernel is replaced
    memory_bytes: int = 0  # address-space limit per kernel process (and each child); 0: none
    # Sandbox only:
    processes: int = 2048  # tasks (processes and threads) in the sandbox; lecture 3 runs 1,000 threads
    file_bytes: int = 256 * MIB  # largest file a process may write
    cpu_seconds: int = 1200  # CPU time per process; the kernel is killed past it
    disk_bytes: int = 512 * MIB  # each of the private folder and /tmp (tmpfs: memory)


def _mib(count):
    return f"{count / MIB:g} MiB"


def _errno_in(text, number):
    return f"[Errno {number}]" in text


def _texts(outputs):
    """What a cell reported going wrong: its errors and its stderr."""
    for output in outputs:
        if output.output_type == "error":
            yield output.ename, str(output.evalue)
        elif output.output_type == "stream" and output.name == "stderr":
            yield "", output.text


def _process_limit_in(text):
    return _errno_in(text, errno.EAGAIN) or "can't start new thread" in text


def process_limit_reached(outputs, sandboxed):
    """Whether the cell's outputs show it ran into the sandbox's process limit."""
    return sandboxed and any(_process_limit_in(text) for _, text in _texts(outputs))


def reasons(outputs, limits, sandboxed):
    """One line per limit the cell's outputs show it ran into."""
    found = []

    def add(line):
        if line not in found:
            found.append(line)

    for ename, text in _texts(outputs):
        if limits.memory_bytes and (ename == "MemoryError" or "MemoryError" in text):
            add(f"reached the address-space limit ({_mib(limits.memory_bytes)})")
        if not sandboxed:
            continue
        if _process_limit_in(text):
            add(f"reached the process limit ({limits.processes} processes and threads)")
        if _errno_in(text, errno.EFBIG):
            add(f"reached the file-size limit ({_mib(limits.file_bytes)})")
        if _errno_in(text, errno.ENOSPC):
            add(f"filled its folder or /tmp (each {_mib(limits.disk_bytes)})")
    return found


def exit_reason(status, limits, sandboxed):
    """Why a kernel that ended with `status` (Popen.returncode; bwrap reports
    a signal as 128 + its number) was ended by a limit, or None."""
    if not sandboxed:
        return None
    if status in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
        return f"used up its CPU time ({limits.cpu_seconds} s per process)"
    if status in (-signal.SIGXFSZ, 128 + signal.SIGXFSZ):
        return f"reached the file-size limit ({_mib(limits.file_bytes)})"
    return None


def describe(limits, sandboxed):
    """The limits in one line, for the report."""
    parts = [f"cell {limits.cell_timeout:g} s", f"notebook {limits.notebook_timeout:g} s"]
    if limits.memory_bytes:
        parts.append(f"address space {_mib(limits.memory_bytes)}")
    if sandboxed:
        parts += [f"{limits.processes} processes", f"files {_mib(limits.file_bytes)}",
                  f"CPU {limits.cpu_seconds} s", f"folder and /tmp {_mib(limits.disk_bytes)} each"]
    return ", ".join(parts)
