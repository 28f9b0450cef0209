"""Jupyter servers on loopback (gillab's Lab, the classic Notebook) driven by headless Chromium
through drive_notebook.js. loopback.py starts and stops the processes."""

import json
import os
import signal
import subprocess
import urllib.request
from dataclasses import dataclass

import nbformat
import pytest

from loopback import JUPYTER_DIR, REPO, ServerProcess, free_port, jupyter_env, remove, temp_base

LAB_BUNDLE = os.path.join(REPO, "build", "lab", "static", "bundle.js")
PLAYWRIGHT = os.path.join(REPO, "lab", "node_modules", "playwright-core")
DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "drive_notebook.js")
SCREENSHOTS = os.path.join(REPO, "build", "clients")
CHROMIUM = "/usr/bin/chromium"

# The small notebook every front end runs: one cell per magic, a sleep job so the gilbench
# progress line has time to show each configuration.
SMOKE_CELLS = [
    nbformat.v4.new_markdown_cell("# gillab in a browser"),
    nbformat.v4.new_code_cell("%gilinfo"),
    nbformat.v4.new_code_cell(
        "%%gilbench --modes sequential,threads --workers 1,2 --jobs 2 --repeats 1\n"
        "import time\n\n"
        "def job(i):\n"
        "    time.sleep(0.3)\n"
        "    return i\n"
    ),
]


def kernel_display_name(name="gillab"):
    with open(os.path.join(JUPYTER_DIR, "kernels", name, "kernel.json")) as f:
        return json.load(f)["display_name"]


def write_smoke_notebook(path):
    """No kernelspec in the metadata: the front end has to be told to use gillab."""
    nb = nbformat.v4.new_notebook(cells=SMOKE_CELLS)
    nbformat.write(nb, path)


def missing(*paths):
    return [p for p in paths if not os.path.exists(p)]


@dataclass
class Server:
    kind: str
    url: str
    token: str
    root: str
    process: ServerProcess
    env: dict

    def api(self, path, method="GET"):
        request = urllib.request.Request(f"{self.url}{path}", method=method,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
        return json.loads(body) if body else None

    def drive(self, notebook, timeout=240, **options):
        """Runs drive_notebook.js on one notebook; returns its JSON report."""
        os.makedirs(SCREENSHOTS, exist_ok=True)
        job = {
            "ui": self.kind, "url": self.url, "token": self.token, "path": notebook,
            "kernel": kernel_display_name(), "chromium": CHROMIUM, "playwright": PLAYWRIGHT,
            "screenshots": SCREENSHOTS, "timeoutMs": timeout * 1000, **options,
        }
        # Chromium's profile, crash reports and caches go to the server's temp folder too.
        base = self.env["TMPDIR"]
        env = {**self.env, "XDG_CONFIG_HOME": os.path.join(base, "xdg-config"),
               "XDG_CACHE_HOME": os.path.join(base, "xdg-cache")}
        process = subprocess.Popen(["node", DRIVER, json.dumps(job)], env=env, cwd=self.root,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   start_new_session=True)
        try:
            out, err = process.communicate(timeout=timeout + 60)
        except subprocess.TimeoutExpired:
            _signal_group(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            pytest.fail(f"the browser driver hung on {notebook}; stderr:\n{err[-3000:]}")
        finally:
            _signal_group(process.pid, signal.SIGKILL)
        assert process.returncode == 0, f"browser driver failed on {notebook}:\n{err[-4000:]}"
        return json.loads(out.strip().splitlines()[-1])


def _server_command(kind, port, token, root):
    common = [f"--port={port}", "--port-retries=0", "--ip=127.0.0.1", "--no-browser", "--allow-root"]
    if kind == "lab":
        return ["/usr/bin/python3", os.path.join(REPO, "lab", "gillab_lab.py"), *common,
                f"--ServerApp.token={token}", f"--ServerApp.root_dir={root}"]
    return ["/usr/bin/python3", "-m", "notebook", *common, f"--NotebookApp.token={token}",
            f"--notebook-dir={root}",
            "--NotebookApp.kernel_spec_manager_class=jupyter_client.kernelspec.KernelSpecManager"]


def start(kind, env=None):
    """Starts a server in a fresh temp folder; returns (server, base) once it answers."""
    base = temp_base(f"gillab-{kind}-")
    root = os.path.join(base, "notebooks")
    os.makedirs(root)
    server_env = jupyter_env(base, **(env or {}))
    port, token = free_port(), f"gillab-test-{os.getpid()}"
    process = ServerProcess(kind, _server_command(kind, port, token, root), server_env, cwd=root)
    server = Server(kind, f"http://127.0.0.1:{port}/", token, root, process, server_env)
    try:
        process.wait_for_http(f"{server.url}api/status", headers={"Authorization": f"token {token}"})
    except RuntimeError:
        stop(server, base)
        raise
    return server, base


def stop(server, base):
    """Shuts the kernels down politely, stops the server; returns the pids that had to be killed."""
    try:
        for kernel in server.api("api/kernels"):
            server.api(f"api/kernels/{kernel['id']}", method="DELETE")
    except OSError:
        pass
    leftovers = server.process.stop()
    remove(base)
    return leftovers


def _signal_group(pgid, sig):
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        pass


def read_notebook(server, name):
    return nbformat.read(os.path.join(server.root, name), as_version=4)
