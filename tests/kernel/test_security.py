"""What a stranger on the machine can do to a kernel: forged messages (wrong
or no HMAC signature) are dropped and logged, the kernel listens only where
its connection file says, and the cell modules of the magics are private to
the user (0700) and removed."""

import json
import os

import psutil
import pytest
import zmq
from jupyter_client.session import Session

from conftest import Kernel


@pytest.fixture
def logged_kernel(tmp_path):
    k = Kernel(log_path=str(tmp_path / "kernel.log"))
    yield k
    k.shutdown()


def forged_request(kernel, channel, msg_type, content, key):
    """Sends one request signed with `key` (not the kernel's) on `channel`;
    returns whatever came back within 2 s."""
    info = kernel.manager.get_connection_info()
    port = info[f"{channel}_port"]
    context = zmq.Context.instance()
    socket = context.socket(zmq.DEALER)
    socket.linger = 0
    socket.connect(f"{info['transport']}://{info['ip']}:{port}")
    try:
        Session(key=key, signature_scheme=info["signature_scheme"]).send(socket, msg_type, content)
        return socket.recv_multipart() if socket.poll(2000) else None
    finally:
        socket.close()


@pytest.mark.parametrize("key", [b"not-the-key", b""], ids=["wrong-key", "unsigned"])
def test_messages_with_a_bad_signature_are_dropped_and_logged(logged_kernel, tmp_path, key):
    marker = tmp_path / "forged-code-ran"
    reply = forged_request(logged_kernel, "shell", "execute_request",
                           {"code": f"open({str(marker)!r}, 'w').close()", "silent": False}, key)
    assert reply is None
    # a forged shutdown on the control channel is ignored too
    assert forged_request(logged_kernel, "control", "shutdown_request", {"restart": False}, key) is None
    assert logged_kernel.manager.is_alive()
    assert not marker.exists()
    assert logged_kernel.eval("1+1") == 2
    assert "signature" in logged_kernel.log().lower(), logged_kernel.log()[-2000:]


def test_the_kernel_listens_only_on_the_connection_files_address(kernel):
    info = kernel.manager.get_connection_info()
    assert info["ip"] == "127.0.0.1"
    ports = {info[f"{name}_port"] for name in ("shell", "iopub", "stdin", "control", "hb")}
    process = psutil.Process(kernel.pid)
    listening = [c for c in process.connections(kind="inet") if c.status == psutil.CONN_LISTEN]
    assert listening, "no listening socket found"
    for connection in listening:
        assert connection.laddr.ip == "127.0.0.1", connection
    assert {c.laddr.port for c in listening} == ports
    for child in process.children(recursive=True):
        assert not [c for c in child.connections(kind="inet") if c.status == psutil.CONN_LISTEN], child


def test_cell_modules_are_private_to_the_user_and_removed(kernel, tmp_path):
    # The job reports on the folder its own module lives in, while it runs.
    report = tmp_path / "module-folder.json"
    body = ("import json, os, stat\n"
            "def job(i):\n"
            "    folder = os.path.dirname(os.path.abspath(__file__))\n"
            "    info = os.stat(folder)\n"
            f"    json.dump([folder, stat.S_IMODE(info.st_mode), info.st_uid], open({str(report)!r}, 'w'))\n")
    kernel.ok(f"%%gilbench --modes sequential --jobs 1 --repeats 1 --warmup 0\n{body}")
    folder, mode, uid = json.loads(report.read_text())
    assert mode == 0o700
    assert uid == os.getuid()
    assert not os.path.exists(folder)
    assert kernel.eval(f"{folder!r} in __import__('sys').path") is False
