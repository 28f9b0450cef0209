"""The student's cell under the magics that run it (runners/student_code): IPython's syntax works
alike under %%gilwatch (sampled and --exact) and %%heartbeat, and an error in her code shows her frames and her line,
none of the runners'."""

import re

import pytest

CELL_MAGICS = ["%%gilwatch", "%%gilwatch --exact", "%%heartbeat --no-blame"]


def shown(result):
    return re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(result.reply["content"]["traceback"]))


@pytest.mark.parametrize("magic", CELL_MAGICS)
def test_ipython_syntax_works_in_the_cell_as_in_any_cell(kernel, magic):
    kernel.ok("for name in ('shell_said', 'home_seen', 'awaited'):\n    globals().pop(name, None)")
    cell = ("import asyncio\n"
            "shell_said = !echo from-the-shell\n"
            "home_seen = %env HOME\n"
            "awaited = await asyncio.sleep(0.01, result='awaited')\n")
    kernel.ok(f"{magic}\n{cell}")
    assert kernel.eval("list(shell_said)") == ["from-the-shell"]
    assert kernel.eval("home_seen == __import__('os').environ['HOME']") is True
    assert kernel.eval("awaited") == "awaited"


SHARE = "def share(total, parts):\n    return total / parts\nshare(10, 0)\n"


@pytest.mark.parametrize("magic, cell, her_line", [
    ("%%gilwatch", SHARE, "return total / parts"),
    ("%%gilwatch --exact", SHARE, "return total / parts"),
    ("%%heartbeat --no-blame", SHARE, "return total / parts"),
    ("%%race --threads 2 --iterations 10 --runs 1", "total = 0\ntotal = total + 10 / 0\n", "total + 10 / 0"),
])
def test_an_error_in_her_code_shows_her_line_and_none_of_the_magics_frames(kernel, magic, cell, her_line):
    result = kernel.execute(f"{magic}\n{cell}")
    assert result.status == "error"
    assert result.reply["content"]["ename"] == "ZeroDivisionError"
    text = shown(result)
    assert her_line in text, text
    assert "lib/gillab/" not in text, text  # no frame of the installed package
    assert kernel.eval("1 + 1") == 2


@pytest.mark.parametrize("magic", CELL_MAGICS)
def test_a_cell_with_a_paragraph_separator_leaves_stderr_empty(kernel, magic):
    # IPython's transformer warns on such a line break; the warning would zero an nbgrader test cell.
    kernel.ok("import warnings\n_filters = warnings.filters[:]\nwarnings.simplefilter('always', UserWarning)")
    try:
        result = kernel.execute(f"{magic}\nx = 1\u2029y = 2\n")
    finally:
        kernel.ok("warnings.filters[:] = _filters")
    assert result.stream("stderr") == ""
