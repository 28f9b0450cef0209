"""One notebook executed cell by cell in a fresh kernel, within limits.

Per-cell timeout: the kernel is interrupted (SIGINT); if it does not come back
to idle within a grace period it is replaced by a fresh one for the remaining
cells. A kernel that dies is replaced the same way. A notebook-wide time budget
bounds the whole run; cells it leaves unrun get an error output, so they can
never score as passed. Output beyond a cap is dropped (a note says how much),
but errors and the fact that stderr was written are always kept: scoring
depends on them.
"""

import json
import queue
import time
from dataclasses import dataclass, field

import nbformat

from . import limits as limit_rules


CANARY = "gillab-grade: error reporting check"
# Collects every ended child of the kernel, leaving no name behind.
REAP_CHILDREN = """import os as _gillab_grade_os
while True:
    try:
        if _gillab_grade_os.waitpid(-1, _gillab_grade_os.WNOHANG)[0] == 0:
            break
    except ChildProcessError:
        break
del _gillab_grade_os"""


class KernelStartError(RuntimeError):
    pass


def error_output(ename, evalue):
    return nbformat.v4.new_output("error", ename=ename, evalue=evalue, traceback=[f"{ename}: {evalue}"])


def _size(content):
    return len(json.dumps(content, default=str))


class OutputCollector:
    """nbformat outputs from IOPub messages, capped in size."""

    def __init__(self, max_bytes):
        self.outputs = []
        self.max_bytes = max_bytes
        self.kept_bytes = 0
        self.dropped_bytes = 0
        self.stderr_dropped = False
        self._clear_on_next = False
        self._by_display_id = {}

    def _append(self, output):
        if self._clear_on_next:
            self._clear()
        last = self.outputs[-1] if self.outputs else None
        if output.output_type == "stream" and last is not None and last.output_type == "stream" \
                and last.name == output.name:
            last.text += output.text
        else:
            self.outputs.append(output)

    def _clear(self):
        self.outputs, self.kept_bytes, self._clear_on_next = [], 0, False
        self._by_display_id.clear()

    def add(self, msg):
        kind, content = msg["msg_type"], msg["content"]
        if kind == "clear_output":
            if content.get("wait"):
                self._clear_on_next = True
            else:
                self._clear()
            return
        if kind == "update_display_data":
            display_id = content.get("transient", {}).get("display_id")
            for output in self._by_display_id.get(display_id, []):
                output.data = content.get("data", {})
                output.metadata = content.get("metadata", {})
            return
        if kind not in ("stream", "display_data", "execute_result", "error"):
            return
        output = nbformat.v4.output_from_msg(msg)
        size = _size(content)
        if kind == "error":
            output.traceback = output.traceback[-50:]
            self._append(output)
            return
        room = self.max_bytes - self.kept_bytes
        if size > room:
            if kind == "stream" and room > 0:
                output.text = output.text[:room]
                self.kept_bytes += room
                self._append(output)
            elif kind == "execute_result":
                # Keep a short text/plain: partial credit is read from it.
                output.data = {"text/plain": str(output.data.get("text/plain", ""))[:200]}
                self._append(output)
            self.dropped_bytes += max(0, size - max(room, 0))
            if kind == "stream" and output.name == "stderr":
                self.stderr_dropped = True
            return
        self.kept_bytes += size
        self._append(output)
        display_id = content.get("transient", {}).get("display_id")
        if kind == "display_data" and display_id:
            self._by_display_id.setdefault(display_id, []).append(output)

    def finish(self):
        if self.dropped_bytes:
            note = f"\n[gillab-grade: {self.dropped_bytes} bytes of output dropped (cap {self.max_bytes} bytes per cell)]\n"
            self._append(nbformat.v4.new_output("stream", name="stdout", text=note))
        if self.stderr_dropped and not any(o.output_type == "stream" and o.name == "stderr" for o in self.outputs):
            self._append(nbformat.v4.new_output("stream", name="stderr", text="[gillab-grade: stderr output dropped]\n"))
        return self.outputs


@dataclass
class RunReport:
    notes: list = field(default_factory=list)
    kernel_starts: int = 0
    processes_killed: int = 0
    seconds: float = 0.0


# Not nbclient 0.7's cell loop, measured (bench/grading_nbclient, docs/benchmarks.md): a kernel deaf to
# SIGINT keeps nbclient waiting past its cell timeout, or with error_on_timeout every later cell times out
# in that same kernel, and a dead kernel ends its run; here an interrupted cell gets a grace, then a
# fresh kernel runs the remaining cells. Output caps and the process-limit watch act mid-cell too.
class NotebookRunner:
    """Runs notebooks' code cells in kernels that `host` starts (a sandbox.Bubblewrap
    or sandbox.Unconfined): every process left when a kernel is replaced or
    the run ends is killed."""

    def __init__(self, kernel_name, host, limits, stop_event=None):
        self.kernel_name = kernel_name
        self.host = host
        self.limits = limits
        self.stop_event = stop_event
        self.manager = None
        self.client = None
        self.report = RunReport()

    @property
    def _sandboxed(self):
        return self.host.mode == "bubblewrap"

    # -- kernel lifecycle
    def _start(self):
        self.manager, self.client = self.host.start(self.kernel_name)
        self.report.kernel_starts += 1
        self.client.start_channels()
        try:
            self.client.wait_for_ready(timeout=self.limits.startup_timeout)
        except RuntimeError as error:
            why = getattr(self.host, "start_error", lambda: "")()
            raise KernelStartError(f"kernel '{self.kernel_name}' did not start: {error}"
                                   + (f" ({why})" if why else "")) from None

    def _stop(self):
        if self.client is not None:
            self.client.stop_channels()
            self.client = None
        if self.manager is not None:
            manager, self.manager = self.manager, None
            self.report.processes_killed += self.host.stop(manager)

    def _restart(self, why):
        self.report.notes.append(why)
        self._stop()
        self._start()

    # -- one cell
    def _collect(self, msg_id, collector, deadline, watch=lambda msg: None):
        """IOPub messages of msg_id until idle: 'idle', 'timeout', 'died' or 'stopped'.
        watch(msg) sees each of the cell's outputs, and None at least every 0.2 s."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            if self.stop_event is not None and self.stop_event.is_set():
                return "stopped"
            try:
                msg = self.client.get_iopub_msg(timeout=min(0.2, remaining))
            except queue.Empty:
                if not self.manager.is_alive():
                    return "died"
                watch(None)
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status":
                if msg["content"]["execution_state"] == "idle":
                    return "idle"
                continue
            collector.add(msg)
            watch(msg)

    def _process_limit_watch(self):
        """A watch for _collect: once the cell's output shows the process limit
        reached, the sandbox's other processes are frozen until the cell ends
        (see Bubblewrap.freeze_all_but_kernel), every 0.05 s at most."""
        reached, last = False, 0.0

        def watch(msg):
            nonlocal reached, last
            if not reached and msg is not None and msg["msg_type"] in ("stream", "error"):
                reached = limit_rules.process_limit_reached([nbformat.v4.output_from_msg(msg)], self._sandboxed)
            if reached and time.monotonic() - last >= 0.05:
                self.host.freeze_all_but_kernel()
                last = time.monotonic()
        return watch

    def _reply_status(self, msg_id):
        deadline = time.monotonic() + self.limits.interrupt_grace
        while time.monotonic() < deadline:
            try:
                reply = self.client.get_shell_msg(timeout=max(0.05, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if reply["parent_header"].get("msg_id") == msg_id:
                return reply["content"].get("status")
        return None

    def _error_reporting_works(self):
        """A cell that must fail still reports its error. Student code can
        silence tracebacks (e.g. replace showtraceback), which would make every
        failing test look passed; this catches the blanket forms of that."""
        collector = OutputCollector(self.limits.max_output_bytes)
        msg_id = self.client.execute(f"raise AssertionError({CANARY!r})", store_history=False,
                                     allow_stdin=False, stop_on_error=False)
        if self._collect(msg_id, collector, time.monotonic() + self.limits.interrupt_grace) != "idle":
            return False
        reported = any(o.output_type == "error" and CANARY in str(o.evalue) for o in collector.outputs)
        return reported and self._reply_status(msg_id) == "error"

    def _run_cell(self, index, cell, timeout, budget_bound):
        collector = OutputCollector(self.limits.max_output_bytes)
        msg_id = self.client.execute(cell.source, store_history=True, allow_stdin=False, stop_on_error=False)
        watch = self._process_limit_watch() if self._sandboxed else (lambda msg: None)
        state = self._collect(msg_id, collector, time.monotonic() + timeout, watch)
        extra, restart_reason = None, None
        if state == "idle":
            # A cell that swallowed its own traceback still gets an error reply.
            if self._reply_status(msg_id) == "error" and not any(o.output_type == "error" for o in collector.outputs):
                extra = error_output("Error", "the kernel reported an error for this cell")
        elif state == "timeout":
            what = "the notebook's time budget" if budget_bound else f"the {timeout:g} s cell timeout"
            self.host.interrupt(self.manager)
            after = self._collect(msg_id, collector, time.monotonic() + self.limits.interrupt_grace, watch)
            extra = error_output("TimeoutError", f"cell {index} exceeded {what}; interrupted")
            self.report.notes.append(f"cell {index} exceeded {what}; interrupted")
            if after != "idle":
                restart_reason = (f"the kernel did not recover from the interrupt in cell {index}; "
                                  "restarted for the remaining cells")
        elif state == "died":
            code = self.manager.provisioner.process.poll() if self.manager.provisioner else None
            limit = limit_rules.exit_reason(code, self.limits, self._sandboxed)
            why = f": it {limit}" if limit else f" (exit status {code})"
            extra = error_output("DeadKernelError", f"the kernel died while running cell {index}{why}")
            restart_reason = (f"the kernel died in cell {index}{why if limit else ''}; "
                              "a fresh kernel ran the remaining cells")
        elif state == "stopped":
            extra = error_output("Aborted", "grading was stopped")
        outputs = collector.finish()
        for reason in limit_rules.reasons(outputs, self.limits, self._sandboxed):
            self.report.notes.append(f"cell {index} {reason}")
        if restart_reason is None and limit_rules.process_limit_reached(outputs, self._sandboxed):
            self._make_room(index)
        if extra is not None:
            outputs.append(extra)
        cell.outputs = outputs
        return state, restart_reason

    def _make_room(self, index):
        """After a cell held by the process limit (a fork bomb): its processes
        are killed and the kernel collects the exit status of those that were
        its children, since a zombie still counts against the limit; else
        every later cell would find no room for a thread."""
        killed = self.host.end_leftovers()
        msg_id = self.client.execute(REAP_CHILDREN, silent=True, store_history=False, allow_stdin=False,
                                     stop_on_error=False)
        self._collect(msg_id, OutputCollector(self.limits.max_output_bytes),
                      time.monotonic() + self.limits.interrupt_grace)
        if killed:
            self.report.notes.append(f"cell {index} left {killed} process(es) at the process limit; "
                                     "they were killed before the next cell")

    def run(self, nb, guarded=lambda cell: False):
        """Executes nb's code cells in place (outputs replaced); returns a RunReport.
        Before each cell for which guarded(cell) is true, error reporting is
        checked; if it was disabled the cell gets an error output.
        Kernels and every process they started are gone when it returns."""
        started = time.monotonic()
        budget_end = started + self.limits.notebook_timeout
        try:
            self._start()
            count = 0
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                cell.outputs, cell.execution_count = [], None
                if not cell.source.strip():
                    continue
                remaining = budget_end - time.monotonic()
                if remaining <= 0 or (self.stop_event is not None and self.stop_event.is_set()):
                    cell.outputs = [error_output("NotRun", "the notebook's time budget ran out before this cell"
                                                 if remaining <= 0 else "grading was stopped before this cell")]
                    continue
                timeout = min(self.limits.cell_timeout, remaining)
                reporting_works = not guarded(cell) or self._error_reporting_works()
                count += 1
                cell.execution_count = count
                state, restart_reason = self._run_cell(index, cell, timeout, budget_bound=timeout < self.limits.cell_timeout)
                if not reporting_works:
                    cell.outputs.append(error_output("GradingIntegrityError",
                                                     "error reporting was disabled before this cell ran"))
                    self.report.notes.append(f"error reporting was disabled before cell {index}; it scores 0")
                if restart_reason is not None and budget_end > time.monotonic():
                    self._restart(restart_reason)
                    count = 0
        finally:
            self._stop()
            self.report.seconds = time.monotonic() - started
        return self.report
