"""Where a child interpreter's GIL is (runners/gil_layout.py), found in the real interpreters: the
project's 3.13 and Debian unstable's 3.14 and 3.15 describe a layout whose fields check out (the
interval and holder read back as the interpreter's own); 3.11, which keeps no such description,
and a free-threaded build with its GIL off are refused in one line. No kernel here: each
interpreter runs the module itself."""

import os
import subprocess

import pytest

from gillab.runners import gil_layout

RUNNERS = os.path.dirname(os.path.abspath(gil_layout.__file__))
CACHE = os.environ.get("GILLAB_CACHE", "/var/cache/gillab")
LAYOUTS = [os.path.join(CACHE, "cpython-3.13/default/bin/python3.13")]
SID_ROOT = os.path.join(CACHE, "debian-sid/root")
FREE_THREADED = os.path.join(CACHE, "cpython-3.13/free-threaded/bin/python3.13t")
# Prints the GIL's address and its interval field, read back through the addresses found.
PROBE = ("import sys, ctypes; sys.path.insert(0, %r); import gil_layout\n"
         "gil, fields = gil_layout.gil_addresses()\n"
         "print(gil <= fields[0] < fields[2] < fields[3] < fields[4] < fields[5],"
         " ctypes.c_ulong.from_address(fields[0] - 16).value, ctypes.c_int.from_address(fields[0]).value)\n" % RUNNERS)


def run(command, env=None):
    return subprocess.run(command + ["-c", PROBE], capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize("python", LAYOUTS, ids=["3.13"])
def test_a_3_13_layout_places_the_gil_s_fields_in_order_and_reads_back_its_interval(python):
    if not os.path.exists(python):
        pytest.skip("the project's 3.13 not built (make free-threaded-python)")
    done = run([python, "-X", "faulthandler"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "5000", "1"]


@pytest.mark.parametrize("name", ["python3.14", "python3.15"])
def test_debian_unstable_s_layouts_check_out_in_their_own_root(name):
    if not os.path.exists(os.path.join(SID_ROOT, "usr/bin", name)) or not os.path.exists("/usr/bin/bwrap"):
        pytest.skip("Debian unstable's pythons not set up (make sid-pythons)")
    done = run(["bwrap", "--bind", SID_ROOT, "/", "--proc", "/proc", "--dev", "/dev", "--ro-bind", RUNNERS, RUNNERS,
                "/usr/bin/" + name])
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "5000", "1"]


def test_3_11_keeps_no_layout_to_read_and_is_refused_in_one_line():
    with pytest.raises(gil_layout.CellError, match=r"3\.13 and later") as refused:
        gil_layout.gil_addresses()
    assert "\n" not in str(refused.value)


def test_a_free_threaded_build_with_its_gil_off_is_refused():
    if not os.path.exists(FREE_THREADED):
        pytest.skip("the free-threaded 3.13 not built (make free-threaded-python)")
    done = run([FREE_THREADED], env=dict(os.environ, PYTHON_GIL="0"))
    assert done.returncode == 1 and "its GIL is off" in done.stderr


def test_with_the_gil_turned_on_a_free_threaded_build_s_layout_checks_out():
    if not os.path.exists(FREE_THREADED):
        pytest.skip("the free-threaded 3.13 not built (make free-threaded-python)")
    done = run([FREE_THREADED], env=dict(os.environ, PYTHON_GIL="1"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "5000", "1"]
