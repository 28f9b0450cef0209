"""runners/student_code on its own (no kernel, no IPython shell): the cell compiled, and a
traceback cut to the student's frames."""

import traceback

import pytest

from gillab.runners import student_code
from gillab.runners.cell_error import CellError


def test_a_cell_that_is_not_python_is_a_one_line_cell_error():
    with pytest.raises(CellError, match=r"^the cell is not valid Python: .* \(line 2\)$"):
        student_code.compile_cell("x = 1\ndef f(:\n", "gilwatch")


def test_a_cell_may_await_at_top_level_and_its_names_land_in_the_namespace():
    namespace = {}
    code = student_code.compile_cell("import asyncio\nseen = await asyncio.sleep(0, result=7)\n", "heartbeat")
    student_code.run_cell(code, namespace)
    assert namespace["seen"] == 7


def test_her_error_starts_at_her_frame_and_shows_her_line():
    code = student_code.compile_cell("def f():\n    return 1 / 0\nf()\n", "gilwatch")
    with pytest.raises(ZeroDivisionError) as raised:
        student_code.run_cell(code, {})
    tb = student_code.students_frames(raised.value.__traceback__)
    assert tb.tb_frame.f_code.co_filename == "<%%gilwatch cell>"
    assert "return 1 / 0" in "".join(traceback.format_tb(tb))


def test_an_error_of_the_runners_own_keeps_its_whole_traceback():
    with pytest.raises(TypeError) as raised:
        student_code.run_cell(None, {})  # eval(None) fails inside the runner, not in a cell
    tb = raised.value.__traceback__
    assert student_code.students_frames(tb) is tb
