"""Process trees below a process: what an interrupted cell started (and stopping it), and
stopping a pool's workers with everything their jobs started. The one walk and the one
freeze-then-kill of the project: the kernel's interrupt, %%gilbench's pools in the kernel,
child interpreters' pools, and the grader (gillab_grade.processes) for a submission's processes.

It follows /proc/PID/task/TID/children rather than psutil's Process.children(), which reads
the stat file of every process on the machine: the kernel takes a snapshot at the start of
every cell, where that costs more than the 1+1 round trip itself (docs/benchmarks.md).
Standard library only, CPython 3.8+ (child interpreters have no psutil). Linux only.
"""

import os
import signal
import time

# multiprocessing's shared helpers outlive the cell that happened to start them by design;
# the next cell expects to find them.
_MULTIPROCESSING_HELPERS = (b"multiprocessing.resource_tracker", b"multiprocessing.forkserver")


def children(pid):
    """Direct children of every thread of `pid`."""
    found = []
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return found
    for task in tasks:
        # os.open/os.read: a file object per thread made the walk twice as slow (docs/benchmarks.md, magic state).
        try:
            fd = os.open("/proc/%d/task/%s/children" % (pid, task), os.O_RDONLY)
        except OSError:
            continue
        try:
            listing = b"".join(iter(lambda: os.read(fd, 1 << 16), b""))
            found.extend(int(child) for child in listing.split())
        except OSError:
            pass
        finally:
            os.close(fd)
    return found


def _read_proc(pid, name):
    """/proc/PID/NAME's bytes, or None once the process is gone."""
    try:
        with open("/proc/%d/%s" % (pid, name), "rb") as f:
            return f.read()
    except OSError:
        return None


def _state(pid):
    """The process's state letter ('R', 'S', 'Z', ...), 'X' once it is gone."""
    text = _read_proc(pid, "stat")
    if text is None:
        return "X"
    after_name = text.rfind(b")")
    return chr(text[after_name + 2]) if 0 <= after_name < len(text) - 2 else "X"


def _live(pid):
    return _state(pid) not in "ZX"


def live_descendants(pid=None):
    """The pids of the live (not zombie) processes below `pid` (default: this process)."""
    found, todo = [], children(pid or os.getpid())
    while todo:
        child = todo.pop()
        if child in found or not _live(child):
            continue
        found.append(child)
        todo.extend(children(child))
    return found


def _is_multiprocessing_helper(pid):
    command = _read_proc(pid, "cmdline") or b""
    return any(helper in command for helper in _MULTIPROCESSING_HELPERS)


def started_since(before):
    """Live descendants of this process not in `before`, multiprocessing's helpers left out."""
    return [pid for pid in live_descendants() if pid not in before and not _is_multiprocessing_helper(pid)]


def _signal(pids, signum):
    for pid in pids:
        try:
            os.kill(pid, signum)
        except OSError:
            pass


def _wait_until_ended(pids, seconds):
    deadline = time.monotonic() + seconds
    while any(_live(pid) for pid in pids):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.01)
    return True


def stop(pids, grace_s=0.3):
    """Gives the processes grace_s to end on their own (after an interrupt they got the same
    SIGINT: jupyter_client signals the process group), then SIGTERM, then SIGKILL. Zombies
    are left to whoever started them to reap."""
    for signum in (None, signal.SIGTERM, signal.SIGKILL):
        if signum is not None:
            _signal(pids, signum)
        if _wait_until_ended(pids, grace_s):
            return


def freeze_then_kill(pids):
    """SIGKILLs `pids` after SIGSTOPping all of them: frozen, none forks a new child while the
    others die (a fork loop outruns a plain kill)."""
    _signal(pids, signal.SIGSTOP)
    _signal(pids, signal.SIGKILL)


def kill_trees(roots):
    """SIGKILLs every process in the trees under `roots`, roots included. Killing a worker
    alone orphans its children (re-parented, they run on), so each tree is frozen first
    (SIGSTOP), twice over: a child forked just before its parent froze shows up only once the
    fork has returned."""
    frozen = set()
    for _ in range(2):
        todo = [pid for pid in roots if pid > 0]
        while todo:
            pid = todo.pop()
            if pid not in frozen:
                try:
                    os.kill(pid, signal.SIGSTOP)
                except OSError:
                    continue  # already gone
                frozen.add(pid)
            todo.extend(children(pid))
    _signal(frozen, signal.SIGKILL)


def reap(pids, seconds=0.2):
    """Collects the exit status of those of `pids` that are this process's own children
    (just killed: they end within moments), so that none stays a zombie."""
    deadline = time.monotonic() + seconds
    for pid in pids:
        while True:
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                break  # not ours, or already collected
            if done or time.monotonic() >= deadline:
                break
            time.sleep(0.002)
