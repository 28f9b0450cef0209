"""The stop button: KeyboardInterrupt in the running cell, same process after."""

import time

import psutil
import pytest

INTERRUPT_BUDGET_S = 2.0

CASES = {
    "busy_loop": "while True: pass",
    "sleep": "import time; time.sleep(100)",
    "thread_join": ("import threading, time\nt = threading.Thread(target=time.sleep, args=(100,), daemon=True)\n"
                    "t.start(); t.join()"),
    "await_sleep": "import asyncio\nawait asyncio.sleep(100)",
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_interrupt_stops_the_cell_and_the_kernel_lives(kernel, case):
    pid_before = kernel.pid
    kernel.interrupt_after(0.5)
    started = time.monotonic()
    result = kernel.execute(CASES[case], timeout=30)
    elapsed = time.monotonic() - started
    assert result.status == "error"
    assert result.reply["content"]["ename"] == "KeyboardInterrupt"
    assert elapsed < 0.5 + INTERRUPT_BUDGET_S, f"{case} took {elapsed:.2f} s to stop"
    assert kernel.pid == pid_before and kernel.manager.is_alive()
    assert kernel.eval("1+1") == 2


def test_interrupt_while_idle_does_nothing(kernel):
    kernel.manager.interrupt_kernel()
    time.sleep(0.3)
    assert kernel.manager.is_alive()
    assert kernel.eval("'still here'") == "still here"


def test_interrupt_stops_threads_the_cell_started(kernel):
    code = ("import threading\n"
            "def spin():\n    while True: pass\n"
            "workers = [threading.Thread(target=spin) for _ in range(3)]\n"
            "for w in workers: w.start()\n"
            "for w in workers: w.join()\n")
    kernel.interrupt_after(0.5)
    result = kernel.execute(code, timeout=30)
    assert result.reply["content"]["ename"] == "KeyboardInterrupt"
    assert "all stopped" in result.stream("stderr")
    assert kernel.eval("sum(w.is_alive() for w in workers)") == 0


def test_interrupt_stops_child_processes_the_cell_started(kernel):
    code = ("import subprocess\n"
            "children = [subprocess.Popen(['sleep', '100']) for _ in range(2)]\n"
            "children[0].wait()\n")
    kernel.interrupt_after(0.5)
    result = kernel.execute(code, timeout=30)
    assert result.reply["content"]["ename"] == "KeyboardInterrupt"
    live = [p for p in psutil.Process(kernel.pid).children(recursive=True) if p.status() != psutil.STATUS_ZOMBIE]
    assert not any(p.name() == "sleep" for p in live), live


def test_a_late_interrupt_does_not_hit_the_next_cell(kernel):
    kernel.ok("import time; time.sleep(0.2)")
    kernel.manager.interrupt_kernel()
    time.sleep(0.2)
    assert kernel.ok("import time; time.sleep(0.3); 'done'").value() == "'done'"
