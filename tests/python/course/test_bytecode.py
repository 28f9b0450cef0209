"""gillab.course.bytecode: a loop's instructions, here and in a 3.9 child."""

import glob
import os

import pytest

from gillab.course.bytecode import loop_body, loop_body_in

PYENV_39 = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.9*/bin/python3.9")))


def test_loop_body_marks_the_read_the_write_and_the_hand_over_points():
    def add(n):
        global counter
        for _ in range(n):
            counter += 1

    marks = [mark for _op, _arg, mark in loop_body(add)]
    assert marks.index("read") < marks.index("write") < marks.index("hand-over point (3.11)")


@pytest.mark.skipif(not PYENV_39, reason="no CPython 3.9 on this machine")
def test_loop_body_in_a_3_9_child_lists_its_own_instructions():
    source = "counter = 0\ndef add(n):\n    global counter\n    for _ in range(n):\n        counter += 1\n"
    ops = [op for op, _arg, _mark in loop_body_in(PYENV_39[-1], source, "add")]
    assert "INPLACE_ADD" in ops and "STORE_GLOBAL" in ops and ops[-1] == "JUMP_ABSOLUTE"
