"""Fixtures that drive the installed gillab kernel over the Jupyter protocol."""

import atexit
import os
import queue
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field

import jupyter_client
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# GILLAB_BUILD_DIR picks another build's kernel (make sanitize: build-asan).
BUILD_DIR = os.path.join(REPO, os.environ.get("GILLAB_BUILD_DIR", "build"))
JUPYTER_DIR = os.path.join(BUILD_DIR, "prefix", "share", "jupyter")
os.environ["JUPYTER_PATH"] = JUPYTER_DIR

# Every kernel of this run (and this process) gets its own temp folder, so the
# "nothing left behind" checks see only this run's files, not another suite's.
_RUN_TMP = tempfile.mkdtemp(prefix="gillab-test-run-")
os.environ["TMPDIR"] = tempfile.tempdir = _RUN_TMP
atexit.register(shutil.rmtree, _RUN_TMP, ignore_errors=True)


@dataclass
class Execution:
    reply: dict
    messages: list = field(default_factory=list)

    @property
    def status(self):
        return self.reply["content"]["status"]

    def stream(self, name=None):
        return "".join(m["content"]["text"] for m in self.messages
                       if m["msg_type"] == "stream" and (name is None or m["content"]["name"] == name))

    def of_type(self, msg_type):
        return [m for m in self.messages if m["msg_type"] == msg_type]

    def result_data(self):
        results = self.of_type("execute_result")
        assert results, f"no execute_result; got {[m['msg_type'] for m in self.messages]}"
        return results[-1]["content"]["data"]

    def value(self):
        return self.result_data()["text/plain"]


class Kernel:
    """One gillab kernel process and a blocking client."""

    def __init__(self, cwd=None, log_path=None, env=None):
        """log_path: where the kernel's own terminal output (xeus's and the
        sanitizers' reports) goes; inherited from the test run otherwise.
        env: the kernel's whole environment (the test run's otherwise)."""
        self.log_path = log_path
        self.manager = jupyter_client.KernelManager(kernel_name="gillab")
        options = {"cwd": cwd} if env is None else {"cwd": cwd, "env": env}
        if log_path:
            with open(log_path, "ab") as log:
                self.manager.start_kernel(stdout=log, stderr=log, **options)
        else:
            self.manager.start_kernel(**options)
        self.client = self.manager.client()
        self.client.start_channels()
        self.wait_for_ready()

    def wait_for_ready(self):
        self.client.wait_for_ready(timeout=60)
        self.shell_reply(self.client.kernel_info(), timeout=60)

    def shell_reply(self, msg_id, timeout):
        """The reply to msg_id. Under load wait_for_ready asks for kernel_info
        again after 1 s without an answer; the extra replies arrive later and
        are skipped here, whichever request comes next."""
        deadline = time.monotonic() + timeout
        while True:
            reply = self.client.get_shell_msg(timeout=max(1, deadline - time.monotonic()))
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply
            assert reply["msg_type"] == "kernel_info_reply", reply["msg_type"]

    def interrupt_after(self, seconds):
        """Presses the stop button `seconds` from now, from a thread, while the caller runs a cell."""
        def interrupt():
            time.sleep(seconds)
            self.manager.interrupt_kernel()
        threading.Thread(target=interrupt, daemon=True).start()

    @property
    def pid(self):
        return self.manager.provisioner.process.pid

    def execute(self, code, timeout=60, **kwargs):
        """Runs code; returns the reply and every IOPub message up to idle."""
        msg_id = self.client.execute(code, **kwargs)
        messages = []
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no idle status for {code!r} within {timeout} s")
            try:
                msg = self.client.get_iopub_msg(timeout=remaining)
            except queue.Empty:
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status":
                if msg["content"]["execution_state"] == "idle":
                    break
                continue
            messages.append(msg)
        return Execution(self.shell_reply(msg_id, deadline - time.monotonic()), messages)

    def ok(self, code, timeout=60):
        """Runs code that must succeed."""
        result = self.execute(code, timeout=timeout)
        assert result.status == "ok", result.reply["content"]
        return result

    def eval(self, expression, timeout=60):
        return eval(self.ok(expression, timeout=timeout).value())

    def log(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def shutdown(self):
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=False)


@pytest.fixture(scope="module")
def kernel():
    k = Kernel()
    yield k
    k.shutdown()


@pytest.fixture
def fresh_kernel(tmp_path):
    k = Kernel(cwd=str(tmp_path))
    yield k
    k.shutdown()
