"""Load: several gillab kernels started and driven at once through Debian's jupyter_server (REST to
start and stop them, a websocket each to run a small %%gilbench and leave a child process running),
all answering, all shut down cleanly, nothing left behind: no kernel, child, connection file or
temp folder. bench/load runs the full 20 and prints the figures; the suite runs as
many as two loaded cores manage in a minute or two."""

import os

import pytest

from kernel_load import SERVER_ARGS, drive_kernels
from loopback import JUPYTER_DIR, JupyterServer

KERNELS = int(os.environ.get("GILLAB_LOAD_KERNELS", "6"))


@pytest.fixture(scope="module")
def server():
    if not os.path.exists(os.path.join(JUPYTER_DIR, "kernels", "gillab", "kernel.json")):
        pytest.skip("the gillab kernelspec is not installed (make build)")
    # A kernel start may take minutes on a machine under heavy load: the server waits as long as we do.
    server = JupyterServer("server", args=[*SERVER_ARGS, "--MappingKernelManager.kernel_info_timeout=300"])
    try:
        yield server
    finally:
        leftovers = server.stop()
    assert not leftovers, f"processes left behind: {leftovers}"


def test_kernels_started_at_once_through_a_server_all_answer_and_shut_down_cleanly(server):
    report = drive_kernels(server, KERNELS)

    failed = [(r.index, r.error) for r in report.runs if not r.answered]
    assert not failed, f"kernels that did not answer: {failed}\n{server.process.log_tail()}"
    assert len({r.pid for r in report.runs}) == KERNELS and all(r.pid for r in report.runs), \
        "each kernel should be its own process below the server"
    for run in report.runs:
        assert run.start_s > 0 and run.result_s > 0
        assert run.children == [run.child_pid], \
            f"kernel {run.index}: only the child its cell left running should be below it, not {run.children}"
        assert run.left == [], f"kernel {run.index} (pid {run.pid}): {run.left} outlived the DELETE"
        assert run.forced is False, f"kernel {run.index} ignored the shutdown_request and was signalled"
        assert not run.connection_file_left, f"kernel {run.index}'s connection file was left"
    assert report.kernels_listed_after == []
    assert report.server_children_after == []
    assert report.new_files == [], f"left in the server's folders: {report.new_files}"
