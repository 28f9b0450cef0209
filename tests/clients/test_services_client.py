"""@jupyterlab/services from node (the protocol client JupyterLab uses) drives a
gillab kernel through Debian's jupyter_server 1.23: the magics' display data,
the progress line's update_display_data, and interrupt over the REST API."""

import json
import os
import shutil
import subprocess

import pytest

from loopback import JupyterServer
from result_bundle import RESULT_MIME

SERVICES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "services")
DRIVER = os.path.join(SERVICES_DIR, "drive_kernel.js")
BENCH_CELL = ("%%gilbench --modes sequential,threads --workers 1,2 --jobs 2 --repeats 1 --warmup 0 -o r\n"
              "import time\ndef job(i):\n    time.sleep(0.05)\n    return i\n")
SPIN_CELL = "%%gilbench --modes threads --workers 2 --jobs 4 --repeats 100\ndef job(i):\n    while True:\n        pass\n"


def node_unavailable():
    if shutil.which("node") is None:
        return "node is not on PATH"
    if not os.path.exists(os.path.join(SERVICES_DIR, "node_modules", ".installed")):
        return "npm ci did not complete in tests/clients/services (make services-client runs it)"
    return None


@pytest.fixture(scope="module")
def jupyter_server():
    reason = node_unavailable()
    if reason:
        pytest.skip(reason)
    server = JupyterServer("server")
    try:
        yield server
    finally:
        leftovers = server.stop()
    assert not leftovers, f"processes left behind: {leftovers}"


def drive(server, cells, interrupt_cell=None, timeout=180):
    job = {"baseUrl": server.url, "token": server.token, "kernel": "gillab",
           "cells": cells, "interruptCell": interrupt_cell}
    process = subprocess.run(["node", DRIVER, json.dumps(job)], cwd=SERVICES_DIR, env=server.env,
                             capture_output=True, text=True, timeout=timeout)
    assert process.returncode == 0, process.stderr[-4000:]
    return json.loads(process.stdout.strip().splitlines()[-1])


def of_type(cell, msg_type):
    return [m["content"] for m in cell["messages"] if m["type"] == msg_type]


def test_magics_display_data_and_progress_updates_reach_a_services_client(jupyter_server):
    report = drive(jupyter_server, ["%gilinfo", BENCH_CELL, "r.results_match"])
    assert report["kernel"] == "gillab" and report["implementation"] == "gillab"
    gilinfo, bench, check = report["cells"]
    assert [c["status"] for c in report["cells"]] == ["ok", "ok", "ok"]

    data = of_type(gilinfo, "execute_result")[0]["data"]
    assert {"text/plain", "text/html", RESULT_MIME} <= set(data)
    assert data[RESULT_MIME]["magic"] == "gilinfo"

    result = of_type(bench, "execute_result")[0]["data"]
    assert {RESULT_MIME, "application/vnd.vegalite.v5+json", "image/png"} <= set(result)
    assert [(row["mode"], row["workers"]) for row in result[RESULT_MIME]["rows"]] == [
        ("sequential", 1), ("threads", 1), ("threads", 2)]
    # the progress line: shown once with a display_id, then updated in place
    shown = [d for d in of_type(bench, "display_data") if d.get("transient", {}).get("display_id")]
    updates = of_type(bench, "update_display_data")
    assert len(shown) == 1 and updates
    assert {u["transient"]["display_id"] for u in updates} == {shown[0]["transient"]["display_id"]}
    assert "done" in updates[-1]["data"]["text/plain"]
    assert not [s for s in of_type(bench, "stream") if s["name"] == "stderr"]

    assert of_type(check, "execute_result")[0]["data"]["text/plain"] == "True"


def test_interrupt_through_the_server_stops_a_magic(jupyter_server):
    report = drive(jupyter_server, [], interrupt_cell=SPIN_CELL)
    assert report["interrupt"]["ename"] == "KeyboardInterrupt"
    # the cell would spin for ever: ending at all proves the interrupt, and well before 10 s
    # after it (1 s of spinning first) proves it was not a late stop, even on 2 loaded cores
    assert report["interrupt"]["seconds"] < 1 + 10
    assert report["interrupt"]["after"] == ["2"]
