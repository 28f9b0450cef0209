"""After every cell the kernel's own output streams work again, whatever the
cell did to sys.stdout / sys.stderr or to file descriptors 1 and 2, so the
next cell runs and prints (over the protocol); the repair itself writes
nothing to stderr."""

import pytest

BREAKERS = {
    "stdout closed": "import sys\nsys.stdout.close()",
    "stderr closed": "import sys\nsys.stderr.close()",
    "stdout replaced": "import io, sys\nsys.stdout = io.StringIO()",
    "stdout set to None": "import sys\nsys.stdout = None",
    "stderr set to None": "import sys\nsys.stderr = None",
    "sys.__stdout__ replaced": "import io, sys\nsys.stdout = sys.__stdout__ = io.StringIO()",
    "fd 1 closed": "import os\nos.close(1)",
    "fd 2 sent to /dev/null": "import os\nos.dup2(os.open(os.devnull, os.O_WRONLY), 2)",
}

NEXT_CELL = ("import os, subprocess, sys\nprint('out')\nprint('err', file=sys.stderr)\n"
             "subprocess.run(['/bin/echo', 'child'], check=True)\nos.write(1, b'fd\\n')")


@pytest.mark.parametrize("breaker", BREAKERS)
def test_the_cell_after_one_that_broke_the_streams_prints(fresh_kernel, breaker):
    broken = fresh_kernel.execute(BREAKERS[breaker])
    assert broken.stream("stderr") == "", "the repair says nothing on stderr"
    result = fresh_kernel.execute(NEXT_CELL)
    assert result.status == "ok", result.reply["content"]
    assert result.stream("stdout") == "out\nchild\nfd\n"
    assert result.stream("stderr") == "err\n"


def test_errors_are_still_reported_after_stderr_was_closed(fresh_kernel):
    fresh_kernel.execute("import sys\nsys.stderr.close()\nsys.stdout.close()")
    result = fresh_kernel.execute("1 / 0")
    assert result.status == "error" and result.reply["content"]["ename"] == "ZeroDivisionError"
    assert [m["content"]["ename"] for m in result.of_type("error")] == ["ZeroDivisionError"]


def test_a_cell_may_redirect_its_own_output_while_it_runs(fresh_kernel):
    # Within the cell the student's choice holds; only the next cell gets the kernel's streams back.
    result = fresh_kernel.execute("import contextlib, io\nbuffer = io.StringIO()\n"
                                  "with contextlib.redirect_stdout(buffer):\n    print('kept')\n"
                                  "print(buffer.getvalue().upper(), end='')")
    assert result.stream("stdout") == "KEPT\n"
