"""%%heartbeat --python over the protocol: the cell runs in each child's own event loop with a
Python-thread probe, rows per interpreter, the child's prints reach the notebook, its errors and
bad input are one-line or reported errors, and an interrupt leaves no child behind."""

import time

import psutil
import pytest

from pythons import FREE_THREADED, GIL_CHILD, live_children, needs_free_threaded, needs_gil_child
from result_bundle import RESULT_MIME

CPU_AGAINST_A_THREAD = ("import threading\nstop = False\n"
                        "def spin():\n    while not stop:\n        pass\n"
                        "t = threading.Thread(target=spin)\nt.start()\n"
                        "total = 0\nfor k in range(3_000_000):\n    total += k\nstop = True\nt.join()\n")


@needs_gil_child
def test_a_blocking_cell_shows_its_gap_in_the_kernel_and_in_the_child_and_the_child_prints(kernel):
    result = kernel.execute(f"%%heartbeat --python kernel,{GIL_CHILD} -o hb\n"
                            "import sys, time\nprint('beat from', sys.version_info[:2])\ntime.sleep(0.5)\n", timeout=120)
    assert result.status == "ok", result.reply["content"]
    assert result.stream("stderr") == ""
    assert "beat from (3, 11)" in result.stream("stdout")  # the kernel's run
    assert "beat from (3, 1" in result.stream("stdout").replace("beat from (3, 11)", "")  # the child's
    rows = result.result_data()[RESULT_MIME]["rows"]
    assert len(rows) == 4 and rows[0]["python"].startswith("kernel ")
    assert [row["probe"] for row in rows] == ["event-loop ticks (asyncio task)", "GIL acquisitions (native probe)",
                                              "event-loop ticks (asyncio task)", "GIL acquisitions (Python-thread probe)"]
    assert 450 < kernel.eval("hb.max_gap_ms") < 2000  # the first interpreter's, the kernel
    child = kernel.eval(f"[i for i in hb.interpreters if i['requested'] == {GIL_CHILD!r}][0]")
    assert 450 < child["max_gap_ms"] < 2000 and child["ticks"] < 20
    assert child["slow_callbacks"] and child["slow_callbacks"][0].startswith("Executing the cell's code took ")
    assert child["gil_probe"] == "python thread" and "OS wake-up" in child["gil_probe_limit"]
    assert kernel.eval("hb.gil_probe") == "native" and kernel.eval("hb.gil_probe_limit is None")
    assert max(kernel.eval(f"hb.gaps(python={GIL_CHILD!r})")) > 450
    assert len(kernel.eval(f"hb.gil_waits(python={GIL_CHILD!r})")) > 10
    assert "OS wake-up" in result.value()


@needs_gil_child
def test_an_awaiting_cell_keeps_the_childs_loop_ticking(kernel):
    result = kernel.execute(f"%%heartbeat --python {GIL_CHILD} -o hb\nimport asyncio\nawait asyncio.sleep(0.5)\n",
                            timeout=120)
    assert result.status == "ok", result.reply["content"]
    assert kernel.eval("hb.max_gap_ms") < 200
    assert kernel.eval("hb.ticks") > 25
    assert kernel.eval("hb.slow_callbacks") == []
    assert kernel.eval("hb.interpreters[0]['kernel']") is False


@needs_gil_child
def test_the_python_probe_sees_a_cpu_bound_cell_hold_the_gil_against_a_thread(kernel):
    result = kernel.execute(f"%%heartbeat --python {GIL_CHILD} -o hb\n{CPU_AGAINST_A_THREAD}", timeout=120)
    assert result.status == "ok", result.reply["content"]
    assert kernel.eval("hb.gil['wait_ratio']") > 0.2
    assert kernel.eval("max(hb.gil_waits())") > 1.0
    assert kernel.eval("hb.max_gap_ms") > 100


@needs_gil_child
@needs_free_threaded
def test_without_a_gil_the_probe_waits_less_than_with_one(kernel):
    result = kernel.execute(f"%%heartbeat --python {GIL_CHILD},{FREE_THREADED} -o hb\n{CPU_AGAINST_A_THREAD}",
                            timeout=180)
    assert result.status == "ok", result.reply["content"]
    with_gil = kernel.eval("hb.interpreters[0]['gil']['wait_ms']['median']")
    without = kernel.eval("hb.interpreters[1]['gil']['wait_ms']['median']")
    assert without < with_gil, (without, with_gil)
    assert "wake-ups, no GIL" in result.value()


@pytest.mark.parametrize("line, fragment", [
    ("%heartbeat start --python 3.13", "--python applies to %%heartbeat on a cell"),
    ("%heartbeat stop --python 3.13", "--python applies to %%heartbeat on a cell"),
    ("%%heartbeat --python python2.5\npass\n", "no python2.5"),
    ("%%heartbeat --python /bin/false\npass\n", "did not answer as a Python"),
])
def test_bad_python_is_a_one_line_error(kernel, line, fragment):
    result = kernel.execute(line)
    content = result.reply["content"]
    assert content["ename"] == "UsageError", content
    assert fragment in content["evalue"] and "\n" not in content["evalue"]
    assert result.stream("stderr") == ""
    assert kernel.eval("1+1") == 2


@needs_gil_child
def test_errors_in_the_childs_cell_are_reported_and_the_kernel_carries_on(kernel):
    result = kernel.execute(f"%%heartbeat --python {GIL_CHILD}\ndef f(:\n")
    assert result.reply["content"]["ename"] == "UsageError"
    assert "not valid Python" in result.reply["content"]["evalue"]
    result = kernel.execute(f"%%heartbeat --python {GIL_CHILD}\nx = 1 / 0\n")
    assert result.status == "error"
    assert "ZeroDivisionError" in result.reply["content"]["evalue"]
    assert result.stream("stderr") == ""
    assert kernel.eval("1+1") == 2


@needs_gil_child
def test_interrupt_kills_and_reaps_the_child(kernel):
    before = live_children(kernel)
    threads_before = psutil.Process(kernel.pid).num_threads()
    for body in ("import time\ntime.sleep(30)\n", "while True:\n    pass\n"):
        kernel.interrupt_after(1.5)
        started = time.monotonic()
        result = kernel.execute(f"%%heartbeat --python {GIL_CHILD}\n{body}", timeout=60)
        assert result.reply["content"]["ename"] == "KeyboardInterrupt", result.reply["content"]
        assert time.monotonic() - started < 1.5 + 3.0
        assert kernel.eval("1+1") == 2
    time.sleep(0.3)
    assert live_children(kernel) <= before
    assert psutil.Process(kernel.pid).num_threads() <= threads_before
