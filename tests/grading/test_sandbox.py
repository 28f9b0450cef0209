"""gillab_grade.sandbox on its own, through the real bwrap and the built kernel: a grader that
dies while its sandbox is starting leaves nothing running, and a healthy start hands over the
sandbox's first process."""

import os
import signal
import subprocess
import sys
import tempfile

import pytest

from test_grading import PREFIX, processes_left_under

sys.path.insert(0, os.path.join(PREFIX, "lib", "gillab", "python"))
from gillab_grade import limits, processes, sandbox  # noqa: E402

WHY_NOT = sandbox.probe(limits.Limits())
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=f"no bubblewrap sandbox here: {WHY_NOT}")

# A grader that launches one sandboxed kernel and is killed at the worst moment: bwrap has been
# started, but its launcher may not yet be bound to die with its parent.
DIES_WHILE_STARTING = """
import os, signal, sys
from gillab_grade import limits, processes, sandbox
sandbox._Handshake.go = lambda self, timeout: os.kill(os.getpid(), signal.SIGKILL)
environ = dict(os.environ, **{processes.TOKEN_VARIABLE: "dies-while-starting"})
sandbox.Bubblewrap(sys.argv[1], ".", environ, limits.Limits()).start("gillab")
"""


def environment():
    return dict(os.environ, PYTHONPATH=os.path.join(PREFIX, "lib", "gillab", "python"),
                JUPYTER_PATH=os.path.join(PREFIX, "share", "jupyter"))


def test_a_grader_killed_while_its_sandbox_starts_leaves_nothing_running():
    private = tempfile.mkdtemp(prefix="gillab-sandbox-test-")
    try:
        grader = subprocess.run([sys.executable, "-c", DIES_WHILE_STARTING, private], env=environment(),
                                capture_output=True, text=True, timeout=60)
        assert grader.returncode == -signal.SIGKILL, grader.stderr
        assert processes_left_under(private, 10) == []
    finally:
        subprocess.run(["rm", "-rf", private])


def test_a_started_sandbox_names_its_first_process_and_ends_with_its_kernel(monkeypatch):
    private = tempfile.mkdtemp(prefix="gillab-sandbox-test-")
    for name in ("PYTHONPATH", "JUPYTER_PATH"):
        monkeypatch.setenv(name, environment()[name])
    environ = dict(os.environ, **{processes.TOKEN_VARIABLE: "a-started-sandbox"})
    host = sandbox.Bubblewrap(private, ".", environ, limits.Limits())
    try:
        manager, client = host.start("gillab")
        client.wait_for_ready(timeout=60)
        assert host.init != host.session  # PID 1 inside, a child of bwrap's launcher
        assert os.path.exists(f"/proc/{host.init}/root{sandbox.RUN}")
        client.stop_channels()
        host.stop(manager)
        assert processes_left_under(private, 10) == []
    finally:
        subprocess.run(["rm", "-rf", private])
