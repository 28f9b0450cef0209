"""The kernel's debugger (xeus-python's, on Debian's debugpy) over the control channel, as
JupyterLab's debugger panel drives it: a breakpoint in a function that a thread runs stops that
thread, its call stack and the threads are shown, and `continue` lets the cell finish."""

import glob
import os

import pytest

from conftest import Kernel

from front_end_traffic import Debugger
from threaded_cell import LOOP_LINE as BREAK_LINE, THREADED_CELL


@pytest.fixture
def debugger_kernel():
    k = Kernel()
    yield k
    k.shutdown()


def test_kernel_info_announces_the_debugger(kernel):
    reply = kernel.shell_reply(kernel.client.kernel_info(), timeout=30)
    assert reply["content"]["debugger"] is True


def test_debug_info_before_the_debugger_starts_tells_how_cells_are_named(debugger_kernel):
    info = Debugger(debugger_kernel.client).ok("debugInfo")["body"]
    assert info["isStarted"] is False
    assert info["hashMethod"] == "Murmur2"
    assert info["tmpFileSuffix"] == ".py"
    assert info["tmpFilePrefix"], info
    assert info["breakpoints"] == []


def test_modules_are_listed_before_and_after_the_debugger_starts(debugger_kernel):
    """JupyterLab asks after every cell, whether or not the debugger runs."""
    dbg = Debugger(debugger_kernel.client)
    for started in (False, True):
        body = dbg.ok("modules")["body"]
        names = {m["name"]: m["path"] for m in body["modules"]}
        assert body["totalModules"] == len(body["modules"]) > 10
        assert names["threading"].endswith("threading.py"), names.get("threading")
        assert len(dbg.ok("modules", {"startModule": 2, "moduleCount": 3})["body"]["modules"]) == 3
        if not started:
            dbg.start()


def test_a_breakpoint_in_a_threads_function_stops_that_thread_and_continue_finishes_the_cell(debugger_kernel):
    k = debugger_kernel
    dbg = Debugger(k.client)
    dbg.start()
    assert dbg.ok("debugInfo")["body"]["isStarted"] is True

    source = dbg.ok("dumpCell", {"code": THREADED_CELL})["body"]["sourcePath"]
    placed = dbg.ok("setBreakpoints", {"source": {"path": source}, "breakpoints": [{"line": BREAK_LINE}],
                                       "sourceModified": False})["body"]["breakpoints"]
    assert [b["verified"] for b in placed] == [True], placed
    dbg.ok("configurationDone")
    listed = dbg.ok("debugInfo")["body"]["breakpoints"]
    assert [(b["source"], [p["line"] for p in b["breakpoints"]]) for b in listed] == [(source, [BREAK_LINE])]

    msg_id = k.client.execute(THREADED_CELL)
    stopped = dbg.event("stopped")["body"]
    assert stopped["reason"] == "breakpoint", stopped

    threads = {t["id"]: t["name"] for t in dbg.ok("threads")["body"]["threads"]}
    assert threads.get(stopped["threadId"]) == "worker", threads
    frames = dbg.ok("stackTrace", {"threadId": stopped["threadId"]})["body"]["stackFrames"]
    top = frames[0]
    assert (top["name"], top["line"], top["source"]["path"]) == ("work", BREAK_LINE, source), frames

    # The stopped frame's locals are there to inspect.
    scopes = dbg.ok("scopes", {"frameId": top["id"]})["body"]["scopes"]
    local_names = {v["name"]: v["value"] for v in dbg.ok(
        "variables", {"variablesReference": scopes[0]["variablesReference"]})["body"]["variables"]}
    assert local_names.get("n") == "4", local_names

    # Breakpoints off, continue: the cell finishes as it would without the debugger.
    dbg.ok("setBreakpoints", {"source": {"path": source}, "breakpoints": [], "sourceModified": False})
    dbg.ok("continue", {"threadId": stopped["threadId"]})
    reply = k.shell_reply(msg_id, timeout=60)
    assert reply["content"]["status"] == "ok", reply["content"]

    dbg.ok("disconnect", {"restart": False, "terminateDebuggee": False})
    # debugpy's start-up says nothing in the notebook (a stderr line would zero a graded cell).
    assert not dbg.stderr, dbg.stderr
    assert k.eval("results") == [6]
    assert k.eval("1 + 1") == 2


def test_the_debuggers_files_in_the_temp_folder_go_when_the_kernel_shuts_down():
    k = Kernel()
    process = k.manager.provisioner.process
    dbg = Debugger(k.client)
    try:
        prefix = dbg.ok("debugInfo")["body"]["tmpFilePrefix"].rstrip("/")
        dbg.start()
        dbg.ok("dumpCell", {"code": THREADED_CELL})
        logs = os.path.join(os.path.dirname(prefix), f"xpython_debug_logs_{process.pid}")
        assert os.listdir(prefix), f"dumpCell wrote no cell file in {prefix}"
        assert os.path.isdir(logs), logs
    finally:
        k.shutdown()
    # Left on its shutdown_request (a kill would skip the clean-up), and took its files along.
    assert process.returncode == 0, process.returncode
    assert not os.path.exists(prefix), os.listdir(prefix)
    assert not glob.glob(os.path.join(os.path.dirname(prefix), f"xpython*{process.pid}*"))
