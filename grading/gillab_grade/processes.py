"""Finding and killing every process one submission started.

A submission's kernel leads its own session; its processes carry a per-run
token in their environment. Whatever left the session (setsid) is still found
by the token; whatever also scrubbed its environment and double-forked is
reparented to the grader when it is a child subreaper (Linux), and reaped at
the end of the batch.
"""

import ctypes
import os
import threading

import psutil

from gillab.runners import process_tree

TOKEN_VARIABLE = "GILLAB_GRADE_TOKEN"
_PR_SET_CHILD_SUBREAPER = 36


def become_subreaper():
    """Orphaned descendants are reparented to this process instead of init."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _session_of(pid):
    try:
        return os.getsid(pid)
    except OSError:
        return None


def _carries_token(proc, token):
    try:
        return proc.environ().get(TOKEN_VARIABLE) == token
    except (psutil.Error, OSError):
        return False


def processes_of(token, session=None):
    """Live processes of one submission: its kernel's session, or its token."""
    me = os.getpid()
    found = []
    for proc in psutil.process_iter():
        if proc.pid == me:
            continue
        try:
            if proc.status() == psutil.STATUS_ZOMBIE:
                continue
        except psutil.Error:
            continue
        if (session is not None and _session_of(proc.pid) == session) or _carries_token(proc, token):
            found.append(proc)
    return found


def reap_children():
    """Collects the exit status of dead children (ours or reparented to us)."""
    for child in psutil.Process().children():
        try:
            if child.status() == psutil.STATUS_ZOMBIE:
                os.waitpid(child.pid, os.WNOHANG)
        except (psutil.Error, ChildProcessError):
            pass


def kill_all(token, session=None, rounds=20):
    """Kills every process of one submission; returns how many were killed."""
    killed = set()
    for _ in range(rounds):
        procs = processes_of(token, session)
        if not procs:
            break
        killed.update(p.pid for p in procs)
        process_tree.freeze_then_kill([p.pid for p in procs])
        psutil.wait_procs(procs, timeout=1)
        reap_children()
    reap_children()
    return len(killed)


_live_kernels = set()
# Held while a kernel is launched and registered, and while orphans are killed:
# a kernel being launched is our child before it is known to be a kernel.
launch_lock = threading.RLock()


def kernel_started(pid):
    with launch_lock:
        _live_kernels.add(pid)


def kernel_stopped(pid):
    with launch_lock:
        _live_kernels.discard(pid)


def kill_orphans():
    """Kills and reaps what was reparented to this process (a subreaper): any
    child that is not a live kernel, with its descendants. Only submissions'
    daemons get here; run after each submission and at the end of the batch."""
    with launch_lock:
        _kill_children_except(_live_kernels)


def _kill_children_except(live):
    for _ in range(20):
        roots = [child for child in psutil.Process().children() if child.pid not in live]
        if not roots:
            return
        process_tree.kill_trees([child.pid for child in roots])
        psutil.wait_procs(roots, timeout=1)
        reap_children()
