"""A student's cell that ends the kernel process (exit(), os._exit, a signal, a segfault), seen the
way a notebook sees it: through Debian's jupyter_server. The death must be reported on the kernel's
websocket, the server must restart the kernel by itself (its autorestart, as on a hub), and the
next cell must run in the new kernel over the same websocket, with nothing of the dead kernel left."""

import os
import time

import psutil
import pytest

from loopback import JUPYTER_DIR, JupyterServer

KILLERS = {
    "exit()": "exit()",
    "os._exit": "import os\nos._exit(3)",
    "SIGKILL to itself": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)",
    "segfault through ctypes": "import ctypes\nctypes.string_at(0)",
}


@pytest.fixture(scope="module")
def server():
    if not os.path.exists(os.path.join(JUPYTER_DIR, "kernels", "gillab", "kernel.json")):
        pytest.skip("the gillab kernelspec is not installed (make build)")
    server = JupyterServer("server", args=["--MappingKernelManager.kernel_info_timeout=300"])
    try:
        yield server
    finally:
        leftovers = server.stop()
    assert not leftovers, f"processes left behind: {leftovers}"


def states_until_restarted(server, channels, dead_pid, timeout=120):
    """The kernel's execution states the server broadcasts until it reports the restart."""
    deadline = time.monotonic() + timeout
    states = []
    while "restarting" not in states and "autorestarting" not in states:
        try:
            msg = channels.next_message(deadline, "a restart notice")
        except TimeoutError as error:
            alive = psutil.pid_exists(dead_pid) and psutil.Process(dead_pid).status() != psutil.STATUS_ZOMBIE
            raise AssertionError(f"{error}: states so far {states}, the killed kernel "
                                 f"{'is still running' if alive else 'has ended'};\n"
                                 f"server log:\n{server.process.log_tail()}") from None
        if msg["msg_type"] == "status":
            states.append(msg["content"]["execution_state"])
    return states


def server_state_once_settled(server, kernel_id, timeout=30):
    """The server's execution_state for the kernel once it has left "starting": the server learns
    the restarted kernel's state from its IOPub status messages, which may trail the first reply."""
    deadline = time.monotonic() + timeout
    state = server.api(f"api/kernels/{kernel_id}")["execution_state"]
    while state == "starting" and time.monotonic() < deadline:
        time.sleep(0.2)
        state = server.api(f"api/kernels/{kernel_id}")["execution_state"]
    return state


@pytest.mark.parametrize("how", sorted(KILLERS))
def test_a_cell_that_kills_the_kernel_is_reported_restarted_and_the_next_cell_runs(server, how):
    kernel = server.api("api/kernels", method="POST", body={"name": "gillab"})
    channels = server.channels(kernel["id"], timeout=120)
    try:
        channels.wait_for_ready(timeout=120)
        reply, _ = channels.execute("x = 41\nx + 1")
        assert reply["status"] == "ok"
        dead_pid = server.kernel_pid(kernel["id"])
        assert dead_pid

        channels.send("execute_request", {"code": KILLERS[how], "silent": False, "store_history": True,
                                          "user_expressions": {}, "allow_stdin": False, "stop_on_error": True})
        states = states_until_restarted(server, channels, dead_pid)
        assert not psutil.pid_exists(dead_pid) or psutil.Process(dead_pid).status() == psutil.STATUS_ZOMBIE

        channels.wait_for_ready(timeout=120)
        reply, messages = channels.execute("'x' in globals(), 1 + 1")
        assert reply["status"] == "ok", f"after {states}: {reply}"
        results = [m["content"]["data"]["text/plain"] for m in messages if m["msg_type"] == "execute_result"]
        assert results == ["(False, 2)"], "the next cell runs in a fresh kernel"
        new_pid = server.kernel_pid(kernel["id"])
        assert new_pid and new_pid != dead_pid
        assert server_state_once_settled(server, kernel["id"]) in ("idle", "busy")
    finally:
        channels.close()
        server.api(f"api/kernels/{kernel['id']}", method="DELETE")
    assert server.api("api/kernels") == []
