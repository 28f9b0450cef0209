"""Shared plumbing for the gillab benchmarks.

BenchEnv prepares a clean place to start kernels from (pyenv-free PATH, the
gillab kernelspec, an ipykernel kernelspec pinned to /usr/bin/python3, private
runtime, working, log and IPython dirs in one temp dir) and guarantees that
every kernel it started is gone and the temp dir removed when it closes.

Kernel talks to one kernel over plain synchronous ZeroMQ sockets rather than
jupyter_client's BlockingKernelClient: that client runs an asyncio loop per
call, which adds client-side overhead and jitter to sub-millisecond round
trips. Messages are timestamped the moment they are received, before they are
deserialized.
"""

import json
import os
import platform
import time
import uuid

import psutil
import zmq
from jupyter_client import KernelManager
from jupyter_client.kernelspec import NoSuchKernel
from loopback import JUPYTER_DIR as GILLAB_JUPYTER_PATH, SYSTEM_PYTHON, clean_path, measured_environ, reap, remove, temp_base

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# libzmq retries a refused TCP connect after RECONNECT_IVL..2*RECONNECT_IVL ms
# (100-200 ms by default). While a kernel is still binding its ports, that
# interval would quantize the cold-start figure, so retry fast.
RECONNECT_IVL_MS = 2


class KernelError(RuntimeError):
    """A kernel did not start, answer or behave as the protocol requires."""


def cpu_model():
    """The CPU's model name, for a benchmark's machine line."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def now():
    return time.perf_counter()


class BenchEnv:
    """Context manager owning the temp dir, the zmq context and all kernels."""

    def __init__(self):
        self.tmp = None
        self.ctx = None
        self.kernels = []
        self._saved_environ = None

    def __enter__(self):
        self.tmp = temp_base("gillab-bench-")
        try:
            self._setup()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def _setup(self):
        kernelspec = os.path.join(GILLAB_JUPYTER_PATH, "kernels", "gillab", "kernel.json")
        if not os.path.isfile(kernelspec):
            raise KernelError(f"gillab kernelspec not found: {kernelspec} (run make build)")

        # Debian's python3 kernelspec may be shadowed by one from another
        # installation; a private spec placed first on JUPYTER_PATH pins it.
        spec_dir = os.path.join(self.tmp, "jupyter", "kernels", "python3")
        os.makedirs(spec_dir)
        with open(os.path.join(spec_dir, "kernel.json"), "w") as f:
            json.dump({"argv": [SYSTEM_PYTHON, "-m", "ipykernel_launcher",
                                "-f", "{connection_file}"],
                       "display_name": "Python 3 (ipykernel, bench)",
                       "language": "python"}, f)
        self.runtime_dir = os.path.join(self.tmp, "runtime")
        self.work_dir = os.path.join(self.tmp, "cwd")
        self.log_dir = os.path.join(self.tmp, "logs")
        self.ipython_dir = os.path.join(self.tmp, "ipython")
        for d in (self.runtime_dir, self.work_dir, self.log_dir, self.ipython_dir):
            os.makedirs(d)

        # What the kernels see: what `make bench` gives them, plus a private
        # IPython profile dir: the user's config and startup files stay out of
        # the figures, and benchmark inputs out of the user's history. IPython
        # creates the profile on first use, so callers should make one
        # unmeasured start per kernel first.
        self.kernel_env = dict(measured_environ(),
                               PATH=clean_path(),
                               JUPYTER_PATH=GILLAB_JUPYTER_PATH,
                               PYTHONNOUSERSITE="1",
                               IPYTHONDIR=self.ipython_dir)

        # For this process only, restored in close(). KernelSpecManager reads
        # JUPYTER_PATH from here. Looking up "python3" imports ipykernel (and
        # with it debugpy) into this process, whose frozen-modules warning
        # would land in the middle of the report.
        overrides = {
            "JUPYTER_PATH": os.pathsep.join([os.path.join(self.tmp, "jupyter"),
                                             GILLAB_JUPYTER_PATH]),
            "PYDEVD_DISABLE_FILE_VALIDATION": "1",
        }
        self._saved_environ = {k: os.environ.get(k) for k in overrides}
        os.environ.update(overrides)
        self.ctx = zmq.Context()

    def start(self, kernel_name, timeout):
        """Start a kernel and wait for its kernel_info_reply; see Kernel."""
        k = Kernel(self, kernel_name)
        self.kernels.append(k)
        k.start(timeout)
        return k

    def close(self):
        # Best effort on every step: a failure here must not leave the rest.
        for k in self.kernels:
            try:
                k.kill()
            except Exception:
                pass
        self.kernels = []
        if self.ctx is not None:
            self.ctx.destroy(linger=0)
            self.ctx = None
        if self._saved_environ is not None:
            for key, value in self._saved_environ.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value
            self._saved_environ = None
        if self.tmp is not None:
            remove(self.tmp)
            self.tmp = None


class Kernel:
    """One started kernel with its shell and iopub sockets."""

    def __init__(self, env, kernel_name):
        self.env = env
        self.name = kernel_name
        self.km = KernelManager(kernel_name=kernel_name, context=env.ctx)
        self.km.connection_file = os.path.join(
            env.runtime_dir, f"kernel-{uuid.uuid4()}.json")
        self.session = self.km.session
        self.log_path = os.path.join(env.log_dir, f"{kernel_name}-{uuid.uuid4().hex[:8]}.log")
        self.shell = self.iopub = None
        self.popen = None
        self.info = None          # content of the first kernel_info_reply
        self.start_s = None       # start_kernel() -> kernel_info_reply, seconds
        self.exit_code = None

    # --- start -----------------------------------------------------------

    def _connect(self, sock_type, port):
        sock = self.env.ctx.socket(sock_type)
        sock.linger = 0
        sock.setsockopt(zmq.RECONNECT_IVL, RECONNECT_IVL_MS)
        if sock_type == zmq.SUB:
            sock.setsockopt(zmq.SUBSCRIBE, b"")
        sock.connect(f"{self.km.transport}://{self.km.ip}:{port}")
        return sock

    def start(self, timeout):
        try:
            spec = self.km.kernel_spec
        except NoSuchKernel as e:
            raise KernelError(f"no kernelspec {self.name!r}: {e}") from None
        if self.name == "python3" and spec.argv[0] != SYSTEM_PYTHON:
            raise KernelError(f"python3 kernelspec resolved to {spec.argv}")
        with open(self.log_path, "wb") as log:
            t0 = now()
            # Kernel output goes to a log, shown on failure, rather than into
            # the report. The child holds its own copy of the fd.
            self.km.start_kernel(env=self.env.kernel_env, cwd=self.env.work_dir,
                                 stdout=log, stderr=log)
        self.popen = self.km.provisioner.process
        self.shell = self._connect(zmq.DEALER, self.km.shell_port)
        self.iopub = self._connect(zmq.SUB, self.km.iopub_port)

        # Like wait_for_ready(): ask for kernel_info (again every second, in
        # case a request got lost) until any reply arrives. The DEALER socket
        # queues requests until the kernel has bound its port.
        deadline = t0 + timeout
        next_send = 0.0
        while True:
            t = now()
            if self.popen.poll() is not None:
                raise KernelError(f"{self.name} exited with code {self.popen.returncode} "
                                  f"before answering kernel_info\n{self.log_tail()}")
            if t >= deadline:
                raise KernelError(f"{self.name} sent no kernel_info_reply within "
                                  f"{timeout:.0f} s\n{self.log_tail()}")
            if t >= next_send:
                self.session.send(self.shell, "kernel_info_request")
                next_send = t + 1.0
            # Short polls only so that a dead kernel is noticed quickly; poll
            # returns as soon as a message is there, so they cost no latency.
            if self.shell.poll(int(min(50, (deadline - t) * 1000)) + 1):
                t_recv, msg = self._recv(self.shell)
                if msg["msg_type"] == "kernel_info_reply":
                    self.start_s = t_recv - t0
                    self.info = msg["content"]
                    break
        self._sync_iopub(deadline)

    def _sync_iopub(self, deadline):
        """Wait until our iopub subscription is live.

        A SUB socket misses whatever the kernel publishes before the
        subscription reaches it, so a shell reply does not mean iopub works.
        Kernels publish busy/idle for every request: nudge with kernel_info
        until its status shows up on iopub.
        """
        while True:
            if now() >= deadline:
                raise KernelError(f"{self.name}: no iopub status after kernel_info_request")
            msg_id = self.session.send(self.shell, "kernel_info_request")["header"]["msg_id"]
            until = min(deadline, now() + 0.2)
            while now() < until:
                if not self.iopub.poll(int((until - now()) * 1000) + 1):
                    continue
                _, msg = self._recv(self.iopub)
                if msg["parent_header"].get("msg_id") == msg_id:
                    return

    # --- messaging -------------------------------------------------------

    def _recv(self, sock):
        frames = sock.recv_multipart()
        t = now()
        _, frames = self.session.feed_identities(frames)
        return t, self.session.deserialize(frames)

    def execute(self, code, timeout):
        """Run code; return (seconds to execute_reply, seconds to idle, text/plain result).

        Shell and iopub are polled together so each message gets its own
        arrival time, whichever comes first.
        """
        msg = self.session.send(self.shell, "execute_request", {
            "code": code, "silent": False, "store_history": True,
            "user_expressions": {}, "allow_stdin": False, "stop_on_error": True})
        t0 = now()  # after serializing, as replies are stamped before parsing
        msg_id = msg["header"]["msg_id"]
        poller = zmq.Poller()
        poller.register(self.shell, zmq.POLLIN)
        poller.register(self.iopub, zmq.POLLIN)
        t_reply = t_idle = result = None
        deadline = t0 + timeout
        while t_reply is None or t_idle is None:
            left = deadline - now()
            if left <= 0 or self.popen.poll() is not None:
                raise KernelError(f"{self.name}: no execute_reply/idle for {code!r} within "
                                  f"{timeout:.0f} s (exit code {self.popen.poll()})\n"
                                  f"{self.log_tail()}")
            for sock, _ in poller.poll(int(left * 1000) + 1):
                t, m = self._recv(sock)
                if m["parent_header"].get("msg_id") != msg_id:
                    continue  # e.g. a late reply to a repeated kernel_info_request
                kind = m["msg_type"]
                if kind == "execute_reply":
                    if m["content"].get("status") != "ok":
                        raise KernelError(f"{self.name}: execute {code!r} failed: {m['content']}")
                    t_reply = t
                elif kind == "status" and m["content"].get("execution_state") == "idle":
                    t_idle = t
                elif kind == "execute_result":
                    result = m["content"]["data"].get("text/plain")
        return t_reply - t0, t_idle - t0, result

    # --- process ---------------------------------------------------------

    def _procs(self):
        """The kernel process and any it spawned."""
        try:
            p = psutil.Process(self.popen.pid)
            return [p] + p.children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def rss_bytes(self):
        """Resident memory of the kernel's process tree (a helper process
        would otherwise hide memory the kernel needs)."""
        total = 0
        for p in self._procs():
            try:
                total += p.memory_info().rss
            except psutil.NoSuchProcess:
                pass
        return total

    def log_tail(self, lines=20):
        try:
            with open(self.log_path, "rb") as f:
                tail = f.read().decode(errors="replace").splitlines()[-lines:]
        except OSError:
            return ""
        return "\n".join("  | " + line for line in tail)

    def _close_sockets(self):
        for sock in (self.shell, self.iopub):
            if sock is not None:
                sock.close(linger=0)
        self.shell = self.iopub = None

    def shutdown(self, timeout):
        """Polite shutdown (shutdown_request, SIGTERM after timeout/2, SIGKILL
        after timeout); then make sure nothing of the kernel survives.
        Returns the kernel's exit code (0 = it left on request)."""
        procs = self._procs()
        self._close_sockets()
        self.km.shutdown_wait_time = timeout
        try:
            self.km.shutdown_kernel(now=False)
        finally:
            # Read before reap: once psutil reaps the child, Popen cannot
            # learn its real exit status any more.
            self.exit_code = self.popen.poll()
            reap(procs)
        return self.exit_code

    def kill(self):
        """Last-resort cleanup, safe to call at any point and repeatedly."""
        self._close_sockets()
        # Only while Popen has not reaped it is the pid surely still ours.
        procs = self._procs() if self.popen and self.popen.poll() is None else []
        if self.km.has_kernel:
            try:
                self.km.shutdown_kernel(now=True)
            except Exception:
                pass
        reap(procs)
        try:
            self.km.cleanup_resources()
        except Exception:
            pass
        if os.path.exists(self.km.connection_file):
            os.remove(self.km.connection_file)
