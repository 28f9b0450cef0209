"""A child forked in a cell that never calls os._exit runs the rest of the cell
and then ends, with the exit status a script's child would have; it never acts
as the kernel (no reply, no status, nothing on the kernel's sockets), and what
it printed reaches the notebook (over the protocol)."""

import queue
import time

FORK_AND_WAIT = """import os
pid = os.fork()
{child}
if pid:
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    print('child exit code', status)
"""


def other_messages(kernel, seconds=0.5):
    """Shell replies and IOPub messages that arrive when nothing was asked."""
    found, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        for get in (kernel.client.get_shell_msg, kernel.client.get_iopub_msg):
            try:
                found.append(get(timeout=0.05)["msg_type"])
            except queue.Empty:
                pass
    return found


def test_a_forked_copy_ends_with_its_copy_of_the_cell_and_its_output_arrives(kernel):
    result = kernel.ok(FORK_AND_WAIT.format(child="print('the child is', 'the child' if pid == 0 else 'the parent')"))
    out = result.stream("stdout")
    assert "the child is the child" in out and "the child is the parent" in out, out
    assert "child exit code 0" in out, out
    assert result.stream("stderr") == ""
    assert other_messages(kernel) == [], "the child sent nothing of its own"
    assert kernel.eval("1 + 1") == 2


def test_a_forked_copy_whose_cell_fails_exits_1_with_its_traceback_on_stderr(kernel):
    result = kernel.ok(FORK_AND_WAIT.format(child="if pid == 0:\n    raise ValueError('only in the child')"))
    assert "child exit code 1" in result.stream("stdout")
    assert "ValueError" in result.stream("stderr") and "only in the child" in result.stream("stderr")
    assert other_messages(kernel) == []
    assert kernel.eval("1 + 1") == 2


def test_forked_copies_leave_the_kernel_answering_every_later_cell(kernel):
    kernel.ok("import os\npids = [os.fork() for _ in range(3)]")  # 8 processes, 7 of them copies
    kernel.ok("import time\ntime.sleep(0.3)")
    assert kernel.eval("sorted(os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) for p in pids if p)") == [0, 0, 0]
    assert other_messages(kernel) == []
    for n in range(5):
        assert kernel.eval(f"{n} * 2") == n * 2
