import json
import os

from gillab.kernel.shell import error_names, forked_copy


def test_a_forked_copy_records_its_error_as_plain_python_formats_it(shell):
    error_names.install(shell)
    forked_copy.install(shell)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            shell.run_cell("def fails():\n    raise ValueError('in the copy')\nfails()")
            os.write(write_end, json.dumps(shell.last_error).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reply:
        name, value, traceback = json.loads(reply.read())
    os.waitpid(pid, 0)
    assert (name, value) == ("ValueError", "in the copy")
    [text] = traceback
    assert text.startswith("Traceback (most recent call last):") and text.endswith("ValueError: in the copy")
    assert "in fails" in text and "\x1b[" not in text, text
    assert "interactiveshell.py" not in text, "the shell's own frames are left out"


def test_the_kernel_itself_keeps_ipythons_tracebacks(shell):
    error_names.install(shell)
    forked_copy.install(shell)
    shell.run_cell("1/0")
    assert any("\x1b[" in line for line in shell.last_error[2])
