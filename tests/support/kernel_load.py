"""Many gillab kernels started and driven at once through one Jupyter server's REST and websocket
API (a small %%gilbench each, then a cell that leaves a child process running), then shut down one
by one, with what each left behind. tests/clients/test_load.py runs a few;
bench/load runs 20 and prints the table."""

import os
import threading
import time
from dataclasses import dataclass, field

import psutil

from loopback import descendants
from result_bundle import RESULT_MIME

# A %%gilbench small enough for many kernels on two cores: two sleeping jobs, twice.
GILBENCH_CELL = ("%%gilbench --modes sequential,threads --workers 2 --jobs 2 --repeats 1 --warmup 0\n"
                 "import time\ndef job(i):\n    time.sleep(0.01)\n    return i\n")
# A child process a student's cell left running: the kernel's shutdown must not leave it behind.
CHILD_CELL = "import subprocess\n_left_running = subprocess.Popen(['sleep', '600'])\n_left_running.pid"
# jupyter_client logs this (at DEBUG) when a kernel outlived the shutdown_request and was signalled.
FORCED_SHUTDOWN = "Kernel is taking too long to finish"
KERNEL_STARTING = "Starting kernel: "  # a DEBUG line of every start
SERVER_ARGS = ("--ServerApp.log_level=DEBUG",)  # what drive_kernels needs of the server


@dataclass
class KernelRun:
    index: int
    kernel_id: str = None
    pid: int = None
    start_s: float = None        # POST api/kernels -> kernel_info_reply over the websocket
    result_s: float = None       # execute_request -> execute_reply and idle, the result received
    answered: bool = False       # an ok reply with the %%gilbench result, nothing on stderr
    error: str = None
    child_pid: int = None        # what CHILD_CELL started
    children: list = field(default_factory=list)  # the kernel's live descendants before shutdown
    shutdown_s: float = None     # DELETE api/kernels/ID
    left: list = None            # pids of the kernel and its descendants still alive after the DELETE
    forced: bool = None          # the server had to signal it
    connection_file_left: bool = None

    @property
    def clean_shutdown(self):
        return self.pid is not None and self.left == [] and self.forced is False and not self.connection_file_left


@dataclass
class LoadReport:
    runs: list
    wall_s: float
    kernels_listed_after: list   # what GET api/kernels still lists
    server_children_after: list  # pids still below the server
    new_files: list              # entries added to the server's temp folder, runtime folder or notebook root

    @property
    def all_answered(self):
        return all(r.answered for r in self.runs)

    @property
    def all_clean(self):
        return (all(r.clean_shutdown for r in self.runs) and not self.kernels_listed_after
                and not self.server_children_after and not self.new_files)


def _drive(server, run, cell, barrier, timeout):
    try:
        barrier.wait(timeout)
        started = time.monotonic()
        run.kernel_id = server.api("api/kernels", "POST", {"name": "gillab"}, timeout=timeout)["id"]
        run.pid = server.kernel_pid(run.kernel_id)
        channels = server.channels(run.kernel_id, timeout)
        try:
            channels.wait_for_ready(timeout)
            run.start_s = time.monotonic() - started
            sent = time.monotonic()
            reply, messages = channels.execute(cell, timeout)
            run.result_s = time.monotonic() - sent
            child_reply, child_messages = channels.execute(CHILD_CELL, timeout)
        finally:
            channels.close()
        results = [m["content"]["data"] for m in messages if m["msg_type"] == "execute_result"]
        stderr = "".join(m["content"]["text"] for m in messages
                         if m["msg_type"] == "stream" and m["content"]["name"] == "stderr")
        run.answered = (reply["status"] == "ok" and len(results) == 1 and not stderr
                        and results[0].get(RESULT_MIME, {}).get("magic") == "gilbench"
                        and bool(results[0][RESULT_MIME].get("rows")))
        if not run.answered:
            run.error = f"reply {reply['status']} {reply.get('evalue', '')!r}, stderr {stderr[:200]!r}"
        elif child_reply["status"] == "ok":
            run.child_pid = int(next(m["content"]["data"]["text/plain"] for m in child_messages
                                     if m["msg_type"] == "execute_result"))
        else:
            run.error = f"{CHILD_CELL!r}: {child_reply.get('evalue')!r}"
    except Exception as error:  # reported per kernel; the others go on
        run.error = f"{type(error).__name__}: {error}"


def _alive_after(processes, timeout):
    """Those of processes (psutil.Process, so a reused pid is not mistaken for them) still running
    after up to timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        alive = []
        for p in processes:
            try:
                if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                    alive.append(p.pid)
            except psutil.NoSuchProcess:
                pass
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


def _listing(server):
    folders = (server.base, server.runtime_dir, server.root)
    return {os.path.join(folder, name) for folder in folders for name in os.listdir(folder)}


def _shut_down(server, run, timeout):
    connection_file = os.path.join(server.runtime_dir, f"kernel-{run.kernel_id}.json")
    kernel = [psutil.Process(run.pid)] if run.pid and psutil.pid_exists(run.pid) else []
    children = descendants(run.pid) if run.pid else []
    run.children = [p.pid for p in children]
    with open(server.process.log_path) as log:
        log.seek(0, os.SEEK_END)
        started = time.monotonic()
        try:
            server.api(f"api/kernels/{run.kernel_id}", "DELETE", timeout=timeout)
        except OSError as error:
            run.error = run.error or f"DELETE failed: {error}"
        run.shutdown_s = time.monotonic() - started
        run.left = _alive_after(kernel + children, timeout=5)
        run.forced = FORCED_SHUTDOWN in log.read()
    run.connection_file_left = os.path.exists(connection_file)


def drive_kernels(server, count, cell=GILBENCH_CELL, timeout=300):
    """Starts count gillab kernels at once through server (a loopback.JupyterServer started with
    SERVER_ARGS, so forced shutdowns show in its log), runs cell in each, then shuts each down;
    returns a LoadReport."""
    before = _listing(server)
    runs = [KernelRun(index) for index in range(count)]
    barrier = threading.Barrier(count)
    started = time.monotonic()
    threads = [threading.Thread(target=_drive, args=(server, run, cell, barrier, timeout)) for run in runs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall_s = time.monotonic() - started
    with open(server.process.log_path) as log:
        if KERNEL_STARTING not in log.read():
            raise RuntimeError("the server does not log at DEBUG: a forced shutdown would go unseen")
    for run in runs:
        if run.kernel_id:
            _shut_down(server, run, timeout)
    # A kernel whose POST timed out may still have been started by the server.
    listed = [k["id"] for k in server.api("api/kernels")]
    for kernel_id in listed:
        if kernel_id not in {r.kernel_id for r in runs}:
            server.api(f"api/kernels/{kernel_id}", "DELETE", timeout=timeout)
    return LoadReport(runs=runs, wall_s=wall_s, kernels_listed_after=listed,
                      server_children_after=[p.pid for p in descendants(server.process.pid)],
                      new_files=sorted(_listing(server) - before))
