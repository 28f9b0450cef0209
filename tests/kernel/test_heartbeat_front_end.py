"""%%heartbeat while JupyterLab's debugger sends `modules` requests on the control channel
(answered by a thread that calls into Python): the loop starved by a thread's multiply is still
blamed on that thread, by name, as it is without the requests, and the gaps stay within the
cruncher's run."""

from front_end_traffic import quiet_then_busy

CELL = (
    "%%heartbeat -o hb\n"
    "import threading, asyncio\n"
    "def crunch():\n"
    "    for _ in range(3):\n"
    "        product = a * b\n"
    "worker = threading.Thread(target=crunch, name='cruncher')\n"
    "worker.start()\n"
    "while worker.is_alive():\n"
    "    await asyncio.sleep(0.005)\n"
)


def figures(kernel):
    blame = kernel.eval("hb.blame()")
    behind = sum(c["share"] for c in blame if c["cause"] == "waited for the GIL" and c["holder"] == "cruncher")
    unproven = sum(c["share"] for c in blame if c.get("holder") == "(unattributed)")
    return {"behind_cruncher": behind, "unattributed": unproven, "max_gap_ms": kernel.eval("hb.max_gap_ms")}


def test_modules_requests_leave_the_blame_and_the_gaps_as_without_them(kernel):
    kernel.ok("a, b = 3 ** 2_000_000, 7 ** 1_600_000", timeout=120)
    quiet, busy, answered = quiet_then_busy(kernel, CELL, figures)
    assert answered > 0
    assert quiet["behind_cruncher"] > 0.5, quiet
    assert busy["behind_cruncher"] > 0.5, busy
    assert busy["unattributed"] < 0.05, busy
    # The thread answering the requests is a third waiter for the GIL: between two multiplies it may
    # take a hand-over the loop asked for, so a gap can span the cruncher's three multiplies, not more.
    assert 0.5 * quiet["max_gap_ms"] <= busy["max_gap_ms"] <= 3.5 * quiet["max_gap_ms"], (quiet, busy)
