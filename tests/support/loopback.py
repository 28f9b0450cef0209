"""Processes on 127.0.0.1 for the tests and the benchmarks, in one place: a pyenv-free environment,
free ports, servers in their own process group and temp folder, their REST API and kernel
websockets, and a teardown that leaves no process or folder behind.

pytest (pyproject.toml's pythonpath) and `make bench` (PYTHONPATH) put this folder on the import path."""

import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
import uuid

import psutil
import websocket

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# GILLAB_BUILD_DIR picks another build's kernel, as in tests/kernel.
JUPYTER_DIR = os.path.join(REPO, os.environ.get("GILLAB_BUILD_DIR", "build"), "prefix", "share", "jupyter")
SYSTEM_PYTHON = "/usr/bin/python3"
FALLBACK_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def clean_path():
    """The caller's PATH without pyenv (its python3 lacks the Jupyter stack)."""
    parts = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and "pyenv" not in p]
    return os.pathsep.join(parts) or FALLBACK_PATH


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def measured_environ():
    """This process's environment without PYTHONPATH: the harness's own import path (tests/support)
    must not reach the kernels and servers it measures."""
    return {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}


def jupyter_env(base, **extra):
    """An environment whose Jupyter config, data, runtime and temp files all live under base."""
    return {
        **measured_environ(), "PATH": clean_path(), "JUPYTER_PATH": JUPYTER_DIR, "PYTHONNOUSERSITE": "1",
        "JUPYTER_CONFIG_DIR": os.path.join(base, "config"),
        "JUPYTER_DATA_DIR": os.path.join(base, "data"),
        "JUPYTER_RUNTIME_DIR": os.path.join(base, "runtime"),
        "IPYTHONDIR": os.path.join(base, "ipython"),
        "TMPDIR": base, **extra,
    }


_HUB_CONFIG = """
c = get_config()  # noqa
c.JupyterHub.bind_url = "http://127.0.0.1:{port}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api_port}"
c.ConfigurableHTTPProxy.pid_file = "{base}/proxy.pid"
c.JupyterHub.db_url = "sqlite:///{base}/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = "{base}/cookie_secret"
c.JupyterHub.authenticator_class = "jupyterhub.auth.DummyAuthenticator"
c.DummyAuthenticator.password = {password!r}
c.Authenticator.allowed_users = {users!r}
c.JupyterHub.spawner_class = "jupyterhub.spawner.SimpleLocalProcessSpawner"
"""


def hub_config(base, password, users):
    """(the hub's URL, the start of its jupyterhub_config.py): a JupyterHub on free loopback ports,
    its files in base, users logging in with one password, servers spawned as local processes."""
    port = free_port()
    text = _HUB_CONFIG.format(port=port, hub_port=free_port(), proxy_api_port=free_port(), base=base,
                              password=password, users=set(users))
    return f"http://127.0.0.1:{port}/", text


def temp_base(prefix):
    return tempfile.mkdtemp(prefix=prefix)


def remove(base):
    shutil.rmtree(base, ignore_errors=True)


def signal_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def descendants(pid):
    """The live processes below pid (none if pid is gone)."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def reap(procs, timeout=2):
    """Waits for procs to end, kills those still alive after timeout; returns the killed ones' pids."""
    _, alive = psutil.wait_procs(procs, timeout=timeout)
    for p in alive:
        try:
            p.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(alive, timeout=timeout)
    return [p.pid for p in alive]


class ServerProcess:
    """A command in its own session, logging to base/NAME.log."""

    def __init__(self, name, command, env, cwd):
        self.name, self.cwd = name, cwd
        self.log_path = os.path.join(env["TMPDIR"], f"{name}.log")
        self._log = open(self.log_path, "w")
        self.process = subprocess.Popen(command, env=env, cwd=cwd, stdout=self._log,
                                        stderr=subprocess.STDOUT, start_new_session=True)

    @property
    def pid(self):
        return self.process.pid

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
        below = descendants(self.process.pid)
        signal_group(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            signal_group(self.process.pid, signal.SIGKILL)
            self.process.wait()
        killed = reap(below, timeout=5)
        self._log.close()
        return killed


def api_request(url, token=None, method="GET", body=None, timeout=30):
    """One JSON request; returns (HTTP status, parsed body or None). HTTP errors raise."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"token {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        text = response.read()
        return response.status, (json.loads(text) if text else None)


class KernelChannels:
    """A kernel's websocket on a Jupyter server (or through a hub's proxy): the v1 JSON protocol."""

    def __init__(self, ws_url, token, timeout=60):
        self.ws = websocket.create_connection(ws_url, header=[f"Authorization: token {token}"], timeout=timeout)
        self.session = uuid.uuid4().hex

    def send(self, msg_type, content, channel="shell"):
        msg_id = uuid.uuid4().hex
        self.ws.send(json.dumps({
            "header": {"msg_id": msg_id, "msg_type": msg_type, "session": self.session,
                       "username": "gillab-test", "version": "5.3", "date": ""},
            "parent_header": {}, "metadata": {}, "channel": channel, "buffers": [], "content": content,
        }))
        return msg_id

    def next_message(self, deadline, what):
        """The next message before deadline. The server pings every 30 s and recv() answers pings
        without returning, so a plain recv() with a longer timeout never times out: frames are read
        one by one, control frames included, and the deadline is checked after each."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {what} in time")
            self.ws.settimeout(left)
            try:
                opcode, frame = self.ws.recv_data_frame(control_frame=True)
            except websocket.WebSocketTimeoutException:
                raise TimeoutError(f"no {what} in time") from None
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                raise ConnectionError(f"the server closed the websocket while waiting for {what}")
            if opcode in (websocket.ABNF.OPCODE_TEXT, websocket.ABNF.OPCODE_BINARY):
                return json.loads(frame.data)

    def wait_for_ready(self, timeout=60):
        """Asks for kernel_info (again every 2 s: a request may be lost while the kernel starts)
        until both its reply and an iopub status for it have come, as jupyter_server's own nudge
        does: after a restart the shell channel may answer before the server's iopub subscription
        reaches the new kernel, and a cell's idle would then be lost. Returns the reply's content."""
        deadline = time.monotonic() + timeout
        asked, reply, heard_iopub = set(), None, False
        while True:
            asked.add(self.send("kernel_info_request", {}))
            resend = min(deadline, time.monotonic() + 2)
            while time.monotonic() < resend:
                try:
                    msg = self.next_message(resend, "kernel_info_reply")
                except TimeoutError:
                    break
                if msg["parent_header"].get("msg_id") not in asked:
                    continue
                if msg["msg_type"] == "kernel_info_reply":
                    reply = msg["content"]
                elif msg["msg_type"] == "status":
                    heard_iopub = True
                if reply is not None and heard_iopub:
                    return reply
            if time.monotonic() >= deadline:
                raise TimeoutError(f"no kernel_info_reply and iopub status within {timeout} s "
                                   f"(reply {'seen' if reply else 'not seen'}, iopub {'heard' if heard_iopub else 'silent'})")

    def execute(self, code, timeout=120):
        """Runs code; returns (execute_reply content, the other messages it caused) once idle."""
        msg_id = self.send("execute_request", {"code": code, "silent": False, "store_history": True,
                                               "user_expressions": {}, "allow_stdin": False,
                                               "stop_on_error": True})
        messages, reply, idle = [], None, False
        deadline = time.monotonic() + timeout
        while reply is None or not idle:
            msg = self.next_message(deadline, f"reply and idle for {code[:60]!r} within {timeout} s "
                                              f"(reply {'seen' if reply else 'not seen'})")
            if msg.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "execute_reply":
                reply = msg["content"]
            elif msg["msg_type"] == "status":
                idle = msg["content"]["execution_state"] == "idle"
            else:
                messages.append(msg)
        return reply, messages

    def close(self):
        self.ws.close()


def server_command(kind, port, token, root, *extra):
    """Debian's jupyter_server ("server"), gillab's Lab ("lab") or the classic Notebook 6.4 ("classic")."""
    common = [f"--port={port}", "--port-retries=0", "--ip=127.0.0.1", "--no-browser", "--allow-root"]
    if kind == "server":
        return [SYSTEM_PYTHON, "-m", "jupyter_server", *common, f"--ServerApp.token={token}",
                f"--ServerApp.root_dir={root}", *extra]
    if kind == "lab":
        return [SYSTEM_PYTHON, os.path.join(REPO, "lab", "gillab_lab.py"), *common,
                f"--ServerApp.token={token}", f"--ServerApp.root_dir={root}", *extra]
    if kind == "classic":
        return [SYSTEM_PYTHON, "-m", "notebook", *common, f"--NotebookApp.token={token}", f"--notebook-dir={root}",
                "--NotebookApp.kernel_spec_manager_class=jupyter_client.kernelspec.KernelSpecManager", *extra]
    raise ValueError(f"unknown server kind {kind!r}")


class JupyterServer:
    """A Jupyter server on a free loopback port, all its files in a fresh temp folder (base): the
    notebooks in base/notebooks, config, data, runtime, IPython and temp files beside them."""

    def __init__(self, kind="server", env=None, args=(), timeout=60):
        self.kind = kind
        self.base = temp_base(f"gillab-{kind}-")
        self.root = os.path.join(self.base, "notebooks")
        self.env = jupyter_env(self.base, **(env or {}))
        settings = ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR")
        for folder in (self.root, *(self.env[k] for k in settings)):
            os.makedirs(folder, exist_ok=True)
        port, self.token = free_port(), f"gillab-test-{uuid.uuid4().hex[:12]}"
        self.url = f"http://127.0.0.1:{port}/"
        self.process = ServerProcess(kind, server_command(kind, port, self.token, self.root, *args),
                                     self.env, cwd=self.root)
        try:
            self.process.wait_for_http(f"{self.url}api/status", timeout=timeout,
                                       headers={"Authorization": f"token {self.token}"})
        except RuntimeError:
            self.stop()
            raise

    @property
    def runtime_dir(self):
        return self.env["JUPYTER_RUNTIME_DIR"]

    def api(self, path, method="GET", body=None, timeout=30):
        return api_request(self.url + path, self.token, method, body, timeout)[1]

    def channels(self, kernel_id, timeout=60):
        ws_url = self.url.replace("http", "ws", 1) + f"api/kernels/{kernel_id}/channels"
        return KernelChannels(ws_url, self.token, timeout)

    def kernel_pid(self, kernel_id):
        """The server's child running this kernel (its argv names the connection file kernel-ID.json)."""
        for child in descendants(self.process.pid):
            try:
                if any(kernel_id in arg for arg in child.cmdline()):
                    return child.pid
            except psutil.NoSuchProcess:
                pass
        return None

    def stop(self):
        """Shuts the kernels down politely, stops the server, removes base; returns the pids that had
        to be killed."""
        try:
            for kernel in self.api("api/kernels"):
                self.api(f"api/kernels/{kernel['id']}", method="DELETE")
        except OSError:
            pass
        killed = self.process.stop()
        remove(self.base)
        return killed
