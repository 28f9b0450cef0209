"""multiprocessing's start method read without fixing it (gillab/runners/start_method.py)."""

import multiprocessing
import subprocess
import sys

from gillab.runners import start_method


def test_current_is_the_platform_default_until_the_program_chooses():
    assert start_method.current() in multiprocessing.get_all_start_methods()


def test_reading_it_leaves_set_start_method_to_the_program():
    # a fresh interpreter: this process's multiprocessing may already be fixed by others
    code = ("import multiprocessing\n"
            "from gillab.runners import start_method\n"
            "first = start_method.current()\n"
            "start_method.context()\n"
            "multiprocessing.set_start_method('spawn')\n"
            "print(first, start_method.current(), start_method.context().get_start_method())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": ":".join(sys.path)}).stdout.split()
    assert out[1:] == ["spawn", "spawn"]
    assert out[0] == multiprocessing.get_all_start_methods()[0]


def test_an_explicit_method_is_taken_as_asked():
    assert start_method.context("spawn").get_start_method() == "spawn"
