"""Servers on 127.0.0.1 for client tests: a free port, a process in its own
group and temp folder, and a teardown that leaves no process or folder behind."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import psutil

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JUPYTER_DIR = os.path.join(REPO, "build", "prefix", "share", "jupyter")
CLEAN_PATH = ":".join(p for p in os.environ.get("PATH", "").split(":") if "pyenv" not in p)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def jupyter_env(base, **extra):
    """An environment whose Jupyter config, data, runtime and temp files all live under base."""
    return {
        **os.environ, "PATH": CLEAN_PATH, "JUPYTER_PATH": JUPYTER_DIR, "PYTHONNOUSERSITE": "1",
        "JUPYTER_CONFIG_DIR": os.path.join(base, "config"),
        "JUPYTER_DATA_DIR": os.path.join(base, "data"),
        "JUPYTER_RUNTIME_DIR": os.path.join(base, "runtime"),
        "IPYTHONDIR": os.path.join(base, "ipython"),
        "TMPDIR": base, **extra,
    }


class ServerProcess:
    """A command in its own session, logging to base/NAME.log."""

    def __init__(self, name, command, env, cwd):
        self.name, self.cwd = name, cwd
        self.log_path = os.path.join(env["TMPDIR"], f"{name}.log")
        self._log = open(self.log_path, "w")
        self.process = subprocess.Popen(command, env=env, cwd=cwd, stdout=self._log,
                                        stderr=subprocess.STDOUT, start_new_session=True)

    def log_tail(self, chars=3000):
        with open(self.log_path) as f:
            return f.read()[-chars:]

    def wait_for_http(self, url, timeout=60, headers=None):
        """Polls url until it answers 2xx (a proxy may answer 404 before its backend is up);
        fails with the log if the process dies."""
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=5).close()
                return
            except OSError:  # HTTPError included
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{self.name} did not answer {url} within {timeout} s:\n{self.log_tail()}")
                time.sleep(0.2)

    def stop(self):
        """SIGTERM to the group, then SIGKILL; kills any descendant that left the group
        (kernels, single-user servers start their own sessions). Returns the pids that had to be killed."""
        try:
            descendants = psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            descendants = []
        _signal_group(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            _signal_group(self.process.pid, signal.SIGKILL)
            self.process.wait()
        _, alive = psutil.wait_procs(descendants, timeout=5)
        for p in alive:
            try:
                p.kill()
            except psutil.NoSuchProcess:
                pass
        self._log.close()
        return [p.pid for p in alive]


def _signal_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def temp_base(prefix):
    return tempfile.mkdtemp(prefix=prefix)


def remove(base):
    shutil.rmtree(base, ignore_errors=True)
