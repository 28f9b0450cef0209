"""gillab.course.interpreters: lecture 6's line-up, each helper run against the real interpreters
it is for (the project's 3.13 / 3.13t, Debian unstable's 3.14 / 3.15); skipped where one is not
set up, with the make target that sets it up."""

import json
import os

import pytest

from gillab.course import interpreters
from gillab.course.children import command, run_file

CACHE = os.environ.get("GILLAB_CACHE", "/var/cache/gillab")
SID = os.path.join(CACHE, "debian-sid", "root", "usr", "bin")
PY313T = os.path.join(CACHE, "cpython-3.13", "free-threaded", "bin", "python3.13t")
needs_sid = pytest.mark.skipif(not os.path.exists(SID + "/python3.15"), reason="make sid-pythons not run")
needs_313t = pytest.mark.skipif(not os.path.exists(PY313T), reason="make free-threaded-python not run")


def test_a_host_interpreter_starts_as_itself_and_a_sid_one_under_bubblewrap(tmp_path):
    assert command("/usr/bin/python3", tmp_path) == ["/usr/bin/python3"]
    sid = command(SID + "/python3.14", tmp_path)
    assert sid[0] == "bwrap" and sid[-2:] == ["--", "/usr/bin/python3.14"] and str(tmp_path) in sid


@needs_sid
def test_a_script_and_the_file_beside_it_run_under_314():
    done = run_file("import helper, sys\nprint(helper.X, sys.version_info[:2])", python=SID + "/python3.14",
                    files={"helper.py": "X = 7"})
    assert done.returncode == 0, done.stderr
    assert done.stdout == "7 (3, 14)\n"


@needs_sid
def test_a_pool_without_the_main_guard_breaks_under_314_only():
    found = {"3.11": {"executable": "/usr/bin/python3"}, "3.14": {"executable": SID + "/python3.14"}}
    runs = interpreters.unguarded_runs(found)
    assert runs["3.11"].returncode == 0 and "doubled: [2, 4, 6]" in runs["3.11"].stdout
    assert runs["3.14"].returncode != 0
    assert any("bootstrapping" in line or "BrokenProcessPool" in line for line in runs["3.14"].error_lines)


@needs_313t
def test_an_extension_that_declares_nothing_turns_313ts_gil_on_unless_python_gil_0():
    runs = interpreters.gil_comes_back(PY313T)
    assert "error" not in runs, runs
    assert "before import: GIL off" in runs["default"].stdout and "after import: GIL on" in runs["default"].stdout
    assert "PYTHON_GIL=0" in interpreters.warning_text(runs["default"])
    assert "after import: GIL off | answer 42" in runs["PYTHON_GIL=0"].stdout
    assert interpreters.warning_text(runs["PYTHON_GIL=0"]) is None


PY313 = os.path.join(CACHE, "cpython-3.13", "default", "bin", "python3.13")
needs_313 = pytest.mark.skipif(not (os.path.exists(PY313) and os.path.exists(PY313T)), reason="make free-threaded-python not run")
RUNNERS = os.path.join(os.path.dirname(interpreters.__file__), "..", "runners")


def described(python):
    """What %gilinfo --interpreters learns about `python`: the runner's own report, run under it."""
    source = {name: open(os.path.join(RUNNERS, name)).read() for name in ("interpreter.py", "start_method.py")}
    done = run_file(source["interpreter.py"], python=python, name="interpreter.py",
                    files={"start_method.py": source["start_method.py"]})
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


class Speeds:
    """The one reading speed_rows makes of a %%gilbench result: one sequential wall per interpreter."""

    def __init__(self, walls):
        self.walls = walls

    def wall(self, mode, workers, python):
        return self.walls[python]


@needs_313
def test_debians_311_and_the_projects_313_builds_are_told_apart_and_313t_is_set_beside_313():
    found = {name: dict(described(python), executable=python)
             for name, python in (("3.11", "/usr/bin/python3.11"), ("3.13", PY313), ("3.13t", PY313T))}
    assert interpreters.built_with(found["3.11"]) == "Debian, PGO+LTO"
    assert interpreters.built_with(found["3.13"]) == interpreters.built_with(found["3.13t"]) != "Debian, PGO+LTO"
    rows = interpreters.speed_rows(Speeds({"/usr/bin/python3.11": 1.0, PY313: 1.5, PY313T: 1.8}), found)
    against = {name: ratio for name, _, _, ratio in rows}
    assert against == {"3.11": "alone", "3.13": "1.00x", "3.13t": "1.20x"}, rows
    assert interpreters.alike_spread_percent(rows, "3.11") is None
    assert interpreters.free_threading_cost(rows) == pytest.approx(20.0)


@needs_sid
def test_debians_314_is_built_like_its_311_so_their_spread_compares_versions():
    found = {name: dict(described(python), executable=python)
             for name, python in (("3.11", "/usr/bin/python3.11"), ("3.14", SID + "/python3.14"))}
    assert interpreters.built_with(found["3.14"]) == interpreters.built_with(found["3.11"])
    rows = interpreters.speed_rows(Speeds({"/usr/bin/python3.11": 1.0, SID + "/python3.14": 1.25}), found)
    assert interpreters.alike_spread_percent(rows, "3.11") == pytest.approx(25.0)
