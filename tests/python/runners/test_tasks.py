"""gillab/runners/tasks.py: the one table of runner tasks, looked up alike by the kernel (the
package, gillab.runners.tasks) and by a child interpreter (the folder on its path, child.py)."""

import json
import os
import subprocess
import sys

import pytest

from gillab.runners import tasks
from gillab.runners.cell_error import CellError


def test_the_kernel_finds_every_task_as_a_module_of_the_package():
    for name, module in tasks.TASKS.items():
        task = tasks.task_module(name)
        assert task.__name__ == "gillab.runners." + module
        assert callable(task.measure)


def test_an_unknown_task_is_a_one_line_cell_error_naming_the_known_ones():
    with pytest.raises(CellError) as raised:
        tasks.task_module("nope")
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith("unknown task 'nope'; known: ")
    assert all(name in message for name in tasks.TASKS)


def test_a_child_finds_every_task_in_the_same_table():
    folder = os.path.dirname(tasks.__file__)
    script = ("import sys; sys.path.insert(0, %r); import tasks; "
              "print(sorted(n for n in tasks.TASKS if callable(tasks.task_module(n).measure)))" % folder)
    run = subprocess.run([sys.executable, "-s", "-c", script], capture_output=True, text=True, timeout=60,
                         cwd="/")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == str(sorted(tasks.TASKS))


def test_a_child_answers_an_unknown_task_as_the_kernel_does():
    child = os.path.join(os.path.dirname(tasks.__file__), "child.py")
    read, write = os.pipe()
    run = subprocess.Popen([sys.executable, "-s", child, str(write)], stdin=subprocess.PIPE,
                           pass_fds=(write,), cwd="/")
    os.close(write)
    run.communicate(json.dumps({"task": "nope"}).encode(), timeout=60)
    with os.fdopen(read) as answer_pipe:
        answer = json.load(answer_pipe)
    with pytest.raises(CellError) as raised:
        tasks.task_module("nope")
    assert answer == {"ok": False, "kind": "usage", "error": str(raised.value)}
