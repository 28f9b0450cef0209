"""Jupyter servers on loopback (gillab's Lab, the classic Notebook) driven by headless Chromium
through drive_notebook.js (run a notebook), explore_lab.js (Lab's other tools),
debug_notebook.js (Lab's debugger) and hub_lab.js (Lab on JupyterHub).
tests/support/loopback.py starts and stops the servers."""

import importlib.util
import json
import os
import shutil
import signal
import subprocess

import nbformat
import pytest

from loopback import JUPYTER_DIR, REPO, signal_group

LAB_BUNDLE = os.path.join(REPO, "build", "lab", "static", "bundle.js")
PLAYWRIGHT = os.path.join(REPO, "lab", "node_modules", "playwright-core")
HERE = os.path.dirname(os.path.abspath(__file__))
DRIVER = os.path.join(HERE, "drive_notebook.js")
EXPLORER = os.path.join(HERE, "explore_lab.js")
DEBUGGER = os.path.join(HERE, "debug_notebook.js")
HUB_LAB = os.path.join(HERE, "hub_lab.js")
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


def skip_reason(kind):
    if missing(CHROMIUM):
        return "Debian's chromium is not installed (make provision)"
    if shutil.which("node") is None or missing(PLAYWRIGHT):
        return "node or playwright-core (lab/node_modules, make lab-app) is missing"
    if missing(os.path.join(JUPYTER_DIR, "kernels", "gillab", "kernel.json")):
        return "the gillab kernelspec is not installed (make build)"
    if kind == "lab" and missing(LAB_BUNDLE):
        return "the Lab bundle is not built (make lab-app)"
    if kind == "classic" and importlib.util.find_spec("notebook") is None:
        return "the classic Notebook (Debian jupyter-notebook) is not installed"
    return None


def require(kind):
    reason = skip_reason(kind)
    if reason:
        pytest.skip(reason)


def drive(server, notebook, timeout=240, script=DRIVER, **options):
    """Runs drive_notebook.js (or another driver script) on one notebook of a JupyterServer ("lab"
    or "classic"); returns its JSON report."""
    job = {"ui": server.kind, "url": server.url, "token": server.token, "path": notebook,
           "kernel": kernel_display_name(), **options}
    return run_driver(script, job, server.env, server.base, server.root, timeout, notebook,
                      server_log=server.process.log_tail)


def run_driver(script, job, env, base, cwd, timeout, what, server_log=None):
    """Runs a driver script on its job (chromium, playwright and a screenshots folder filled in)
    with Chromium's profile, crash reports and caches under `base`; returns its JSON report.
    On failure the message ends with the server's log (server_log(): its tail), which says why a
    kernel died or restarted."""
    os.makedirs(SCREENSHOTS, exist_ok=True)
    job = {"chromium": CHROMIUM, "playwright": PLAYWRIGHT, "screenshots": SCREENSHOTS,
           "timeoutMs": timeout * 1000, **job}
    env = {**env, "XDG_CONFIG_HOME": os.path.join(base, "xdg-config"),
           "XDG_CACHE_HOME": os.path.join(base, "xdg-cache")}
    process = subprocess.Popen(["node", script, json.dumps(job)], env=env, cwd=cwd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout + 60)
    except subprocess.TimeoutExpired:
        signal_group(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        pytest.fail(f"the browser driver hung on {what}; stderr:\n{err[-3000:]}")
    finally:
        signal_group(process.pid, signal.SIGKILL)
    if process.returncode != 0:
        log = f"\nserver log:\n{server_log()}" if server_log else ""
        pytest.fail(f"browser driver failed on {what}:\n{err[-4000:]}{log}")
    return json.loads(out.strip().splitlines()[-1])


def read_notebook(server, name):
    return nbformat.read(os.path.join(server.root, name), as_version=4)
