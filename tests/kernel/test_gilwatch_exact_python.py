"""%%gilwatch --exact --python over the protocol: in a child interpreter the trace library finds the
GIL from the interpreter's own layout, so the project's 3.13 and Debian unstable's 3.14 and 3.15
trace two spinners as the kernel does (counts equal to CPython's, every forced wait at least the
interval, parts adding up), and so does the free-threaded 3.13t asked for with its GIL on
(NAME:PYTHON_GIL=1); an interpreter it cannot read (3.11, a free-threaded build with the GIL off) is
a one-line refusal that says how to turn the GIL on; an error in the child's cell leaves no child
behind."""

import time

import pytest
from pythons import DEFAULT_313, FREE_THREADED, SID_PYTHONS, live_children, needs_default_build, needs_free_threaded, \
    needs_sid_pythons
from test_gilwatch_exact import usage_error

SPINNERS = ("import threading, time\n"
            "def spin(seconds):\n"
            "    end = time.perf_counter() + seconds\n"
            "    while time.perf_counter() < end:\n"
            "        pass\n"
            "ts = [threading.Thread(target=spin, args=(0.4,), name=f'spin-{k}') for k in range(2)]\n"
            "for t in ts: t.start()\n"
            "for t in ts: t.join()\n")


def traced_in(kernel, python):
    result = kernel.execute(f"%%gilwatch --exact --python {python} -o w\n{SPINNERS}", timeout=120)
    assert result.status == "ok", result.reply["content"]
    assert result.stream("stderr") == ""
    assert kernel.eval("w.lost") == 0
    assert kernel.eval("w.handovers") == kernel.eval("w.switches")
    interval = kernel.eval("w.switch_interval_ms")
    forced = kernel.eval("[x for x in w.waits(forced=True) if x['taker'].startswith('spin')]")
    assert 3 <= len(forced) <= 1.2 * 400 / interval, len(forced)
    assert all(x["interval_ms"] >= 0.9 * interval for x in forced), min(x["interval_ms"] for x in forced)
    assert kernel.eval("w.parts_add_up")
    assert {"spin-0", "spin-1"} <= {t["name"] for t in kernel.eval("w.threads")}
    return result


@needs_default_build
def test_the_project_s_3_13_is_traced_from_its_own_layout(kernel):
    result = traced_in(kernel, DEFAULT_313)
    assert "under 3.13" in result.result_data()["text/plain"]


@needs_sid_pythons
@pytest.mark.parametrize("python", SID_PYTHONS, ids=["3.14", "3.15"])
def test_debian_unstable_s_3_14_and_3_15_are_traced_from_their_own_layout(kernel, python):
    traced_in(kernel, python)


def test_an_interpreter_without_a_layout_to_read_is_refused_in_one_line(kernel):
    assert "3.13 and later" in usage_error(kernel.execute("%%gilwatch --exact --python /usr/bin/python3\npass\n", timeout=120))
    assert kernel.eval("1 + 1") == 2


@needs_free_threaded
def test_a_free_threaded_build_with_its_gil_off_is_refused_in_one_line_saying_how_to_turn_it_on(kernel):
    error = usage_error(kernel.execute(f"%%gilwatch --exact --python {FREE_THREADED}\npass\n", timeout=120))
    assert "GIL is off" in error and ":PYTHON_GIL=1" in error, error


@needs_free_threaded
def test_a_free_threaded_build_asked_for_with_its_gil_on_is_traced_and_labelled_so(kernel):
    result = traced_in(kernel, f"{FREE_THREADED}:PYTHON_GIL=1")
    assert "GIL on" in kernel.eval("w.python"), kernel.eval("w.python")
    assert "GIL on" in result.result_data()["text/plain"]


@pytest.mark.parametrize("python, says", [("kernel:PYTHON_GIL=1", "kernel's own GIL"),
                                          ("/usr/bin/python3:PYTHON_GIL=1", "not a free-threaded build"),
                                          ("3.13t:PYTHON_GIL=2", "takes 1")])
def test_python_gil_on_what_cannot_take_it_is_refused_in_one_line(kernel, python, says):
    assert says in usage_error(kernel.execute(f"%%gilwatch --exact --python {python}\npass\n", timeout=120))


def test_two_interpreters_in_one_call_are_refused_in_one_line(kernel):
    assert "one interpreter" in usage_error(kernel.execute("%%gilwatch --exact --python kernel,/usr/bin/python3\npass\n"))


@needs_default_build
def test_an_error_in_the_child_s_cell_is_reported_and_leaves_no_child(kernel):
    result = kernel.execute(f"%%gilwatch --exact --python {DEFAULT_313}\n1 / 0\n", timeout=120)
    assert result.status == "error"
    assert "ZeroDivisionError" in result.reply["content"]["evalue"] + result.reply["content"]["ename"]
    assert live_children(kernel) == set()


@needs_default_build
def test_the_interrupt_stops_a_traced_child_and_leaves_no_child_and_the_kernel_answering(kernel):
    kernel.interrupt_after(3)  # the child is up and tracing by then
    started = time.monotonic()
    result = kernel.execute(f"%%gilwatch --exact --python {DEFAULT_313}\n"
                            "import time\nend = time.perf_counter() + 60\nwhile time.perf_counter() < end: pass\n",
                            timeout=60)
    assert result.reply["content"]["ename"] == "KeyboardInterrupt", result.reply["content"]
    assert time.monotonic() - started < 3 + 3.0
    time.sleep(0.3)
    assert live_children(kernel) == set()
    traced_in(kernel, DEFAULT_313)  # and the next traced cell runs
