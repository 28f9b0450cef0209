"""What the kernel asks another interpreter before measuring under it: once per kernel and
executable (the probe, runners/interpreter.py), again only when the executable's file changes."""

import os
import stat


def counting_python(folder):
    """A python3 that writes each command line it was started with to calls.log, then is Debian's."""
    log = folder / "calls.log"
    python = folder / "python3"
    python.write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec /usr/bin/python3 "$@"\n')
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    return python, log


def started(log):
    """(probes, children) the kernel started so far: interpreter.py runs, child.py runs."""
    lines = log.read_text().splitlines() if log.exists() else []
    return (sum("interpreter.py" in line for line in lines), sum("child.py" in line for line in lines))


def race_under(kernel, python):
    kernel.ok(f"%%race --python {python} --threads 1 --iterations 10 --runs 1 --modes unlocked -o r\nn = 0\nn += 1\n")


def test_an_interpreter_is_probed_once_per_kernel_until_its_file_changes(kernel, tmp_path):
    python, log = counting_python(tmp_path)
    race_under(kernel, python)
    assert started(log) == (1, 1)
    race_under(kernel, python)
    race_under(kernel, python)
    assert started(log) == (1, 3)  # a child per call, the probe's answer kept
    later = python.stat().st_mtime + 10
    os.utime(python, (later, later))  # as a rebuild or a reinstall would
    race_under(kernel, python)
    assert started(log) == (2, 4)


def test_a_probe_that_failed_is_asked_again(kernel, tmp_path):
    log = tmp_path / "calls.log"
    python = tmp_path / "python3"
    python.write_text(f'#!/bin/sh\necho "$*" >> {log}\necho not a python >&2\nexit 3\n')
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    for _ in range(2):
        result = kernel.execute(f"%%race --python {python} --threads 1 --iterations 10 --runs 1\nn = 0\nn += 1\n")
        assert result.status == "error" and result.reply["content"]["ename"] == "UsageError"
        assert "did not answer as a Python (exit status 3): not a python" in result.reply["content"]["evalue"]
    assert started(log) == (2, 0)
