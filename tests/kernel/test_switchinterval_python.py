"""%switchinterval --sweep --python over the protocol: rows per interpreter, the default build's
lateness following the interval and the free-threaded build's not (wide margins: 2 noisy cores),
the loads and probes in a child, the one-line errors, and the kernel's own interval and no child
left behind on every exit path."""

import time

import pytest

from pythons import FREE_THREADED, GIL_CHILD, live_children, needs_free_threaded, needs_gil_child
from result_bundle import RESULT_MIME


def interval(kernel):
    return kernel.eval("__import__('sys').getswitchinterval()")


@pytest.fixture(autouse=True)
def default_interval_afterwards(kernel):
    yield
    kernel.ok("import sys; sys.setswitchinterval(0.005)")


@needs_gil_child
def test_rows_per_interpreter_name_version_build_and_gil_and_the_kernel_interval_is_untouched(kernel):
    kernel.ok("import sys; sys.setswitchinterval(0.003)")
    before = live_children(kernel)
    result = kernel.execute(f"%switchinterval --sweep 5ms,0.2ms --duration 300ms --python kernel,{GIL_CHILD} -o r",
                            timeout=120)
    assert result.status == "ok", result.reply["content"]
    assert result.stream("stderr") == ""
    assert interval(kernel) == pytest.approx(0.003)
    rows = result.result_data()[RESULT_MIME]["rows"]
    assert len(rows) == 4
    assert {row["gil"] for row in rows} == {"on"}
    pythons = [row["python"] for row in rows]
    assert pythons[0].startswith("kernel 3.11")
    assert pythons[2].startswith(kernel.eval("r.interpreters[1]['interpreter']['version']"))
    assert kernel.eval("[(i['kernel'], i['probe']) for i in r.interpreters]") == [(True, "native"), (False, "python thread")]
    assert kernel.eval(f"r.handovers('0.2ms', python={GIL_CHILD!r}) > 10")
    assert kernel.eval(f"r.worst('5ms', python={GIL_CHILD!r}) >= r.median('5ms', python={GIL_CHILD!r}) >= 0")
    assert kernel.eval(f"r.rate('5ms', python={GIL_CHILD!r}) > 0")
    assert kernel.eval("r.median('5ms') == r.median('5ms', python='kernel')")
    assert "Python probe thread" in result.value()
    # live progress comes from the child too: which interval it is on
    progress = [m["content"]["data"]["text/plain"] for m in result.messages if m["msg_type"] == "update_display_data"]
    assert any("interval 0.2 ms (2 of 2)" in p and not p.startswith("switchinterval: kernel") for p in progress), progress
    missing = kernel.execute("r.median('5ms', python='2.7')")
    assert missing.reply["content"]["ename"] == "KeyError" and "measured: kernel" in missing.reply["content"]["evalue"]
    time.sleep(0.3)
    assert live_children(kernel) <= before


@needs_gil_child
@needs_free_threaded
def test_lateness_follows_the_interval_with_a_gil_and_not_without_one(kernel):
    result = kernel.execute(f"%switchinterval --sweep 5ms,0.2ms --duration 1s --python {GIL_CHILD},{FREE_THREADED} -o r",
                            timeout=180)
    assert result.status == "ok", result.reply["content"]
    gil = f"python={GIL_CHILD!r}"
    free = f"python={FREE_THREADED!r}"
    # With a GIL the probe waits for the spinner's slice: the upper quartile (as in the kernel's
    # own test: on a busy machine the spinner is often off the CPU and the probe finds the GIL free).
    slow, fast = kernel.eval(f"r.run('5ms', {gil})['lateness_ms']['q3'], r.run('0.2ms', {gil})['lateness_ms']['q3']")
    assert slow > fast and slow > 2.0, (slow, fast)
    # Without one the probe runs beside the spinner: its lateness is the OS's, far below the 5 ms
    # interval and below what the GIL build shows there.
    free_slow = kernel.eval(f"r.run('5ms', {free})['lateness_ms']['median']")
    assert free_slow < 2.5 and free_slow < slow, (free_slow, slow)
    assert kernel.eval("r.interpreters[1]['interpreter']['gil_enabled']") is False
    assert "GIL off" in kernel.eval("r.interpreters[1]['python']")
    assert "nothing to hand over" in result.value()


@needs_gil_child
def test_a_long_c_call_and_the_yield_probe_run_in_a_child(kernel):
    result = kernel.execute(f"%switchinterval --sweep 0.2ms --load bigint --duration 1s --python {GIL_CHILD} -o big",
                            timeout=120)
    assert result.status == "ok", result.reply["content"]
    assert kernel.eval(f"big.worst('0.2ms', python={GIL_CHILD!r})") > 50 * 0.2
    assert "no interval can cut it" in result.value()
    result = kernel.execute(f"%switchinterval --sweep 5ms --probe yield --duration 500ms --python {GIL_CHILD} -o y",
                            timeout=120)
    assert result.status == "ok", result.reply["content"]
    assert kernel.eval(f"y.handovers('5ms', python={GIL_CHILD!r})") > 10
    assert kernel.eval("y.run('5ms')['probe']['acquisitions'] == y.handovers('5ms')")


@pytest.mark.parametrize("line, fragment", [
    ("--sweep 5ms --python python2.5", "no python2.5"),
    ("--sweep 5ms --python /bin/false", "did not answer as a Python"),
    ("--sweep 5ms --python kernel,,3.9", "empty name"),
    ("--python 3.13", "applies to --sweep"),
    ("1ms --python 3.13", "applies to --sweep"),
    ("--timeline --python 3.13", "--python applies to --sweep only"),
])
def test_bad_python_is_a_one_line_error_and_changes_nothing(kernel, line, fragment):
    kernel.ok("import sys; sys.setswitchinterval(0.003)")
    result = kernel.execute(f"%switchinterval {line}")
    content = result.reply["content"]
    assert content["ename"] == "UsageError", content
    assert fragment in content["evalue"] and "\n" not in content["evalue"]
    assert result.stream("stderr") == ""
    assert interval(kernel) == pytest.approx(0.003)


@needs_gil_child
def test_interrupt_kills_and_reaps_the_child_and_restores_the_interval(kernel):
    kernel.ok("import sys; sys.setswitchinterval(0.003)")
    before = live_children(kernel)

    kernel.interrupt_after(2.0)
    started = time.monotonic()
    result = kernel.execute(f"%switchinterval --sweep 5ms,1ms --duration 20s --python kernel,{GIL_CHILD}", timeout=60)
    assert result.reply["content"]["ename"] == "KeyboardInterrupt", result.reply["content"]
    assert time.monotonic() - started < 2.0 + 3.0
    assert interval(kernel) == pytest.approx(0.003)
    # and in the child's part of a sweep (the kernel measured nothing here)
    kernel.interrupt_after(2.0)
    started = time.monotonic()
    result = kernel.execute(f"%switchinterval --sweep 5ms,1ms --duration 20s --python {GIL_CHILD}", timeout=60)
    assert result.reply["content"]["ename"] == "KeyboardInterrupt", result.reply["content"]
    assert time.monotonic() - started < 2.0 + 3.0
    time.sleep(0.3)
    assert live_children(kernel) <= before
    assert interval(kernel) == pytest.approx(0.003)
    assert kernel.eval("1+1") == 2
