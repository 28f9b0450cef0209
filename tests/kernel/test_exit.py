"""exit() and quit() in a cell behave as in ipykernel: the reply arrives with an "ask_exit"
payload, then the kernel process ends by itself with status 0 (a notebook server restarts it);
exit(keep_kernel=True) sends the payload and keeps the kernel. sys.exit() is an ordinary error."""

import time

import pytest


def wait_for_exit(kernel, seconds=10):
    deadline = time.monotonic() + seconds
    while kernel.manager.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not kernel.manager.is_alive()


@pytest.mark.parametrize("code", ["exit()", "quit()", "exit", "get_ipython().ask_exit()"])
def test_exit_replies_with_the_ask_exit_payload_then_ends_the_kernel(fresh_kernel, code):
    result = fresh_kernel.execute(code)
    assert result.status == "ok"
    assert result.reply["content"]["payload"] == [{"source": "ask_exit", "keepkernel": False}]
    assert not result.of_type("error") and not result.stream("stderr")
    assert wait_for_exit(fresh_kernel), "the kernel should end after exit()"
    assert fresh_kernel.manager.provisioner.process.returncode == 0

    fresh_kernel.manager.restart_kernel(now=True)
    fresh_kernel.wait_for_ready()
    assert fresh_kernel.eval("1+1") == 2


def test_exit_keep_kernel_sends_the_payload_and_the_kernel_goes_on(fresh_kernel):
    fresh_kernel.ok("kept = 'still here'")
    result = fresh_kernel.execute("exit(keep_kernel=True)")
    assert result.status == "ok"
    assert result.reply["content"]["payload"] == [{"source": "ask_exit", "keepkernel": True}]
    time.sleep(0.5)
    assert fresh_kernel.manager.is_alive()
    assert fresh_kernel.eval("kept") == "still here"
    # the payload belongs to that reply only
    assert fresh_kernel.ok("1+1").reply["content"]["payload"] == []


def test_sys_exit_is_an_error_in_the_cell_not_the_end_of_the_kernel(fresh_kernel):
    result = fresh_kernel.execute("import sys\nsys.exit(3)")
    assert result.status == "error" and result.reply["content"]["ename"] == "SystemExit"
    assert fresh_kernel.manager.is_alive()
    assert fresh_kernel.eval("1+1") == 2
