"""What the interpreter probe (gillab/runners/interpreter.py) reports, run as a script the way the
kernel runs it under any interpreter: the default start method a pool would get there."""

import glob
import json
import os
import subprocess

import pytest

from gillab.runners import interpreter

SID = os.path.join(os.environ.get("GILLAB_CACHE", "/var/cache/gillab"), "debian-sid", "root")
OLD_PYTHONS = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/[23].[0-9]*/bin/python[23].[0-9]")))


def probe(argv):
    return json.loads(subprocess.run([*argv, "-s", interpreter.__file__], capture_output=True, text=True,
                                     check=True).stdout)


def test_the_kernels_python_forks_by_default_and_says_its_switch_interval():
    found = probe(["/usr/bin/python3"])
    assert found["default_start_method"] == "fork" and found["switch_interval_s"] == pytest.approx(0.005)
    assert interpreter.describe()["default_start_method"] in ("fork", "spawn", "forkserver")


@pytest.mark.skipif(not OLD_PYTHONS, reason="no pyenv interpreters on this machine")
@pytest.mark.parametrize("python", OLD_PYTHONS)
def test_old_interpreters_still_answer_the_probe(python):
    assert probe([python])["default_start_method"] == "fork"


@pytest.mark.skipif(not os.path.exists(SID + "/usr/bin/python3.14"), reason="make sid-pythons not run")
def test_debians_314_reports_forkserver_from_inside_its_root():
    runners = os.path.dirname(interpreter.__file__)
    found = probe(["bwrap", "--bind", SID, "/", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                   "--ro-bind", runners, runners, "--", "/usr/bin/python3.14"])
    assert found["version"].startswith("3.14.") and found["default_start_method"] == "forkserver"
