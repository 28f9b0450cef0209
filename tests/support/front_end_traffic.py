"""What JupyterLab's debugger sends a kernel while a cell runs: Debug Adapter `modules` requests
on the control channel, as `Debugger` (the one way the tests speak the Debug Adapter Protocol over
debug_request) and `FrontEndTraffic` (a thread that keeps sending them)."""

import queue
import threading
import time


class Debugger:
    """Debug Adapter Protocol requests in debug_request messages, answered on control."""

    def __init__(self, client):
        self.client = client
        self.seq = 0
        self.stderr = []  # stderr text that reached IOPub while the debugger ran

    def request(self, command, arguments=None, timeout=30):
        self.seq += 1
        msg = self.client.session.msg("debug_request", {
            "type": "request", "seq": self.seq, "command": command, "arguments": arguments or {}})
        self.client.control_channel.send(msg)
        deadline = time.monotonic() + timeout
        while True:
            reply = self.client.get_control_msg(timeout=max(0.1, deadline - time.monotonic()))
            if reply["parent_header"].get("msg_id") == msg["header"]["msg_id"]:
                assert reply["msg_type"] == "debug_reply", reply["msg_type"]
                return reply["content"]

    def ok(self, command, arguments=None, timeout=30):
        content = self.request(command, arguments, timeout)
        assert content.get("success"), (command, content)
        return content

    def start(self):
        self.ok("initialize", {
            "clientID": "gillab-tests", "clientName": "gillab-tests", "adapterID": "", "pathFormat": "path",
            "linesStartAt1": True, "columnsStartAt1": True, "supportsVariableType": True,
            "supportsVariablePaging": True, "supportsRunInTerminalRequest": True, "locale": "en"})
        self.ok("attach")

    def event(self, name, timeout=60):
        """The next debug_event of that name on IOPub; other messages are kept in `others`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                msg = self.client.get_iopub_msg(timeout=1)
            except queue.Empty:
                continue
            if msg["msg_type"] == "stream" and msg["content"]["name"] == "stderr":
                self.stderr.append(msg["content"]["text"])
            if msg["msg_type"] == "debug_event" and msg["content"].get("event") == name:
                return msg["content"]
        raise TimeoutError(f"no {name!r} debug event within {timeout} s")


class FrontEndTraffic:
    """A thread that sends JupyterLab's debugger `modules` requests on `client`'s control channel
    every `every_s` (the test's own thread keeps shell and IOPub): `with FrontEndTraffic(client)
    as traffic:` around a cell, then `traffic.modules_answered` counts the answered requests.
    The same client, as Lab's: this xeus answers only the first client that connects."""

    def __init__(self, client, every_s=0.01):
        self.client = client
        self.every_s = every_s
        self.modules_answered = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._send, daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=60)

    def _send(self):
        debugger = Debugger(self.client)
        while not self._stop.is_set():
            if debugger.request("modules", {"startModule": 0, "moduleCount": 0}).get("success"):
                self.modules_answered += 1
            self._stop.wait(self.every_s)


def quiet_then_busy(kernel, cell, figures, timeout=120):
    """Runs `cell` on the test kernel alone, then again while FrontEndTraffic sends its requests,
    reading `figures(kernel)` after each: (quiet figures, busy figures, requests answered while the
    busy run's cell ran)."""
    kernel.ok(cell, timeout=timeout)
    quiet = figures(kernel)
    with FrontEndTraffic(kernel.client) as sender:
        kernel.ok(cell, timeout=timeout)
        answered = sender.modules_answered
    return quiet, figures(kernel), answered
