"""The same native magics in a stock IPython kernel: `%load_ext gillab` in
Debian's ipykernel loads the `_gillab` extension module the gillab kernel runs from, and the magics give
results of the same structure as in the gillab kernel, progress and interrupt
included."""

import contextlib
import json
import os
import shutil
import tempfile
import threading
import time

import jupyter_client
import psutil
import pytest
from jupyter_client.kernelspec import KernelSpecManager

from conftest import REPO, Kernel
from pngs import png_of
from result_bundle import RESULT_MIME

PACKAGE_DIR = os.path.join(REPO, "build", "prefix", "lib", "gillab", "python")
CPU_JOB = "def job(i):\n    total = 0\n    for k in range(100_000):\n        total += k\n    return total + i\n"
SMALL_BENCH = "%%gilbench --workers 1,2 --jobs 4 --repeats 1 --warmup 0 -o r\n" + CPU_JOB


class IPyKernel(Kernel):
    """Debian's ipykernel on /usr/bin/python3, with the gillab package on PYTHONPATH."""

    def __init__(self, kernel_dirs):
        specs = KernelSpecManager(kernel_dirs=kernel_dirs)
        self.manager = jupyter_client.KernelManager(kernel_name="python3", kernel_spec_manager=specs)
        self.manager.start_kernel()
        self.client = self.manager.client()
        self.client.start_channels()
        self.wait_for_ready()


@contextlib.contextmanager
def ipykernel_with_gillab():
    """A fresh ipykernel with `%load_ext gillab` done; shut down on leaving."""
    spec_root = tempfile.mkdtemp(prefix="gillab-ipykernel-spec-")
    spec_dir = os.path.join(spec_root, "python3")
    os.makedirs(spec_dir)
    with open(os.path.join(spec_dir, "kernel.json"), "w") as f:
        json.dump({
            "display_name": "Python 3 (ipykernel) with gillab",
            "language": "python",
            "argv": ["/usr/bin/python3", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "env": {"PYTHONPATH": PACKAGE_DIR, "PYTHONNOUSERSITE": "1",
                    "PYDEVD_DISABLE_FILE_VALIDATION": "1"},
            "interrupt_mode": "signal",
        }, f)
    k = IPyKernel([spec_root])
    try:
        k.ok("%load_ext gillab")
        yield k
    finally:
        k.shutdown()
        shutil.rmtree(spec_root, ignore_errors=True)


@pytest.fixture(scope="module")
def ipykernel():
    with ipykernel_with_gillab() as k:
        yield k


def bundle_shape(data):
    """What two kernels' results must share: mime types, JSON keys, table columns, data fields."""
    payload = data[RESULT_MIME]
    return (sorted(data), sorted(payload), payload.get("columns"), sorted(payload["data"]))


def test_load_ext_uses_the_kernels_own_module_and_lists_the_magics(ipykernel, kernel):
    # one native module: the one the gillab kernel runs from
    assert ipykernel.eval("__import__('_gillab').__file__") == kernel.eval("__import__('_gillab').__file__")
    assert ipykernel.eval("__import__('_gillab').__file__").endswith(".so")
    assert ipykernel.eval("__import__('sys').executable") == "/usr/bin/python3"
    assert ipykernel.eval("sorted(__import__('_gillab').magics())") == kernel.eval("sorted(__import__('_gillab').magics())")
    listing = ipykernel.ok("%lsmagic").value()
    assert "%gilinfo" in listing and "%%gilbench" in listing


def test_gilinfo_gives_the_same_result_structure(ipykernel, kernel):
    ours = ipykernel.ok("%gilinfo -o info")
    theirs = kernel.ok("%gilinfo -o info")
    assert bundle_shape(ours.result_data()) == bundle_shape(theirs.result_data())
    assert ours.stream("stderr") == ""
    assert ipykernel.eval("info.gil_enabled") is True
    assert ipykernel.eval("info.switch_interval_ms == __import__('sys').getswitchinterval() * 1000")
    assert ipykernel.eval("type(info).__name__") == kernel.eval("type(info).__name__")


def test_gilbench_gives_the_same_rows_fields_and_progress(ipykernel, kernel):
    ours = ipykernel.execute(SMALL_BENCH, timeout=120)
    assert ours.status == "ok", ours.reply["content"]
    theirs = kernel.execute(SMALL_BENCH, timeout=120)
    assert theirs.status == "ok", theirs.reply["content"]
    assert bundle_shape(ours.result_data()) == bundle_shape(theirs.result_data())
    rows = lambda execution: [(r["mode"], r["workers"]) for r in execution.result_data()[RESULT_MIME]["rows"]]
    assert rows(ours) == rows(theirs)
    assert ipykernel.eval("r.results_match") is True
    assert ipykernel.eval("r.speedup('sequential')") == pytest.approx(1.0)
    # the progress line: one display with an id, updated in place up to "done"
    shown = ours.of_type("display_data")
    updates = ours.of_type("update_display_data")
    assert shown and updates
    display_id = shown[0]["content"]["transient"]["display_id"]
    assert all(u["content"]["transient"]["display_id"] == display_id for u in updates)
    assert "done" in updates[-1]["content"]["data"]["text/plain"]
    assert ours.stream("stderr") == ""


def test_charts_are_the_same_matplotlib_png_as_in_the_gillab_kernel(ipykernel, kernel):
    shown = {}
    for name, k in (("ipykernel", ipykernel), ("gillab", kernel)):
        result = k.execute("%switchinterval --timeline --sweep 5ms,1ms --duration 100ms", timeout=60)
        assert result.status == "ok", result.reply["content"]
        content = result.of_type("execute_result")[-1]["content"]
        shown[name] = png_of(content["data"], content["metadata"])
        assert result.stream("stderr") == ""
    assert shown["ipykernel"].size == shown["gillab"].size


def test_asyncio_mode_runs_inside_ipykernels_event_loop(ipykernel):
    body = "import asyncio\nasync def ajob(i):\n    await asyncio.sleep(0.05)\n    return i\n"
    result = ipykernel.execute(f"%%gilbench --workers 8 --jobs 8 --repeats 2 -o r\n{body}", timeout=60)
    assert result.status == "ok", result.reply["content"]
    assert ipykernel.eval("r.wall('asyncio', 8)") < 0.4
    # the kernel's own loop still serves the next cells, top-level await included
    assert ipykernel.eval("1+1") == 2
    assert ipykernel.ok("import asyncio\nawait asyncio.sleep(0.01)\n'awaited'").value() == "'awaited'"


GILWATCH_SPINNERS = ("%%gilwatch -o w\nimport threading, time\n"
                     "def spin():\n    end = time.perf_counter() + 0.5\n    while time.perf_counter() < end:\n        pass\n"
                     "threads = [threading.Thread(target=spin, name=f'spinner-{k}') for k in range(2)]\n"
                     "for t in threads: t.start()\nfor t in threads: t.join()\n")


def test_gilwatch_sees_the_same_threads_and_fields(ipykernel, kernel):
    ours = ipykernel.execute(GILWATCH_SPINNERS, timeout=60)
    assert ours.status == "ok", ours.reply["content"]
    theirs = kernel.execute(GILWATCH_SPINNERS, timeout=60)
    assert theirs.status == "ok", theirs.reply["content"]
    assert bundle_shape(ours.result_data()) == bundle_shape(theirs.result_data())
    assert ours.stream("stderr") == ""
    for k in range(2):
        assert 0.2 < ipykernel.eval(f"w.held_share('spinner-{k}')") < 0.8
    # ipykernel's own threads (IOPub, Control, heartbeat) are named and hold next to nothing
    names = ipykernel.eval("[t['name'] for t in w.threads]")
    assert "MainThread" in names and len(names) > 3, names
    assert ipykernel.eval("sum(t['held_share'] for t in w.threads)") <= 1 + 1e-9


def test_bad_argument_is_a_one_line_usage_error(ipykernel):
    result = ipykernel.execute("%gilinfo --workers 3")
    assert result.reply["content"]["ename"] == "UsageError"
    assert "'--workers'" in result.reply["content"]["evalue"]
    # IPython itself prints a UsageError as one stderr line, without a traceback
    assert result.stream("stderr").strip().splitlines() == [f"UsageError: {result.reply['content']['evalue']}"]
    assert ipykernel.eval("1+1") == 2


@pytest.mark.parametrize("mode", ["sequential", "threads", "processes"])
def test_interrupt_stops_the_magic_and_the_kernel_goes_on(ipykernel, mode):
    children_before = {p.pid for p in psutil.Process(ipykernel.pid).children(recursive=True)}
    threads_before = psutil.Process(ipykernel.pid).num_threads()

    def stop():
        time.sleep(1.0)
        ipykernel.manager.interrupt_kernel()
    threading.Thread(target=stop, daemon=True).start()
    started = time.monotonic()
    result = ipykernel.execute(f"%%gilbench --modes {mode} --workers 2 --jobs 4 --repeats 100\n"
                               "def job(i):\n    while True:\n        pass\n", timeout=30,
                               # else ipykernel aborts a request that arrives just after the error
                               stop_on_error=False)
    assert result.reply["content"]["ename"] == "KeyboardInterrupt", result.reply["content"]
    assert time.monotonic() - started < 1.0 + 3.0
    assert ipykernel.eval("1+1") == 2
    time.sleep(0.5)
    live = {p.pid for p in psutil.Process(ipykernel.pid).children(recursive=True)
            if p.status() != psutil.STATUS_ZOMBIE}
    assert live <= children_before
    assert psutil.Process(ipykernel.pid).num_threads() <= threads_before
    assert ipykernel.eval("__import__('sys').getswitchinterval()") == 0.005


def test_exit_with_a_watch_and_a_heartbeat_still_running_ends_the_kernel_cleanly():
    """Instruments a line form keeps (start without stop) are ended at interpreter exit, before
    the interpreter finalises: their native threads must not sample or wait for a GIL that is gone."""
    with ipykernel_with_gillab() as k:
        k.ok("%gilwatch start --period 100us")
        k.ok("%heartbeat start --probe-every 1ms")
        k.ok("import threading\n"
             "def spin():\n"
             "    while True:\n"
             "        pass\n"
             "threading.Thread(target=spin, daemon=True).start()")
        time.sleep(0.3)
        assert k.execute("exit()").status == "ok"
        deadline = time.monotonic() + 30
        while k.manager.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not k.manager.is_alive(), "the kernel should end after exit()"
        assert k.manager.provisioner.process.returncode == 0
