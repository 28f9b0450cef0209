"""Other CPythons: %gilinfo --interpreters over the protocol, and the project's free-threaded
build (tools/build-free-threaded-python) really running without the GIL."""

import os
import subprocess

from pythons import DEFAULT_313 as DEFAULT_BUILD, FREE_THREADED, needs_default_build, needs_free_threaded


def ask(python, env=None):
    code = "import sys, sysconfig; print(sys._is_gil_enabled(), bool(sysconfig.get_config_var('Py_GIL_DISABLED')))"
    return subprocess.run([python, "-c", code], env=dict(os.environ, **(env or {})), capture_output=True,
                          text=True, check=True).stdout.split()


def test_gilinfo_interpreters_lists_the_kernels_python_and_what_each_is(kernel):
    result = kernel.execute("%gilinfo --interpreters -o found")
    assert result.status == "ok", result.reply["content"]
    assert result.stream("stderr") == ""
    found = kernel.eval("found.interpreters")
    mine = [entry for entry in found if entry["kernel"]]
    assert len(mine) == 1 and mine[0]["version"].startswith("3.11") and mine[0]["gil_enabled"] is True
    for entry in found:
        described = {"version", "free_threaded_build", "gil_enabled", "gil_enabled_with_python_gil_1"}
        assert "error" in entry or described <= set(entry)
    assert len({os.path.realpath(entry["executable"]) for entry in found}) == len(found)
    assert "found in" in result.value()


@needs_free_threaded
def test_free_threaded_build_runs_without_the_gil_and_python_gil_1_turns_it_on():
    assert ask(FREE_THREADED) == ["False", "True"]
    assert ask(FREE_THREADED, {"PYTHON_GIL": "1"}) == ["True", "True"]


@needs_default_build
def test_default_build_of_the_same_source_has_the_gil():
    assert ask(DEFAULT_BUILD) == ["True", "False"]


@needs_free_threaded
def test_gilinfo_interpreters_shows_the_free_threaded_build(kernel):
    kernel.ok("%gilinfo --interpreters -o found")
    by_path = {entry["executable"]: entry for entry in kernel.eval("found.interpreters")}
    assert by_path[FREE_THREADED]["found_in"] == "project build"
    assert by_path[FREE_THREADED]["free_threaded_build"] is True
    assert by_path[FREE_THREADED]["gil_enabled"] is False
    assert by_path[FREE_THREADED]["gil_enabled_with_python_gil_1"] is True


@needs_free_threaded
def test_python_names_resolve_to_the_project_builds(kernel):
    kernel.ok("%%race --python 3.13t --threads 1 --iterations 10 --runs 1 --modes unlocked -o r\nn = 0\nn += 1\n")
    assert kernel.eval("r.interpreters[0]['interpreter']['executable']") == FREE_THREADED


def test_gilinfo_interpreters_says_how_each_was_built(kernel):
    result = kernel.ok("%gilinfo --interpreters -o found")
    found = [entry for entry in kernel.eval("found.interpreters") if "error" not in entry]
    for entry in found:
        assert {"pgo", "lto", "debug", "free_threaded", "flags_from", "config_args"} <= set(entry["build"]), entry
        assert entry["build"]["free_threaded"] == entry["free_threaded_build"]
        assert "/bin/" not in entry["label"] and entry["label"].startswith(entry["version"]), entry
    mine = next(entry for entry in found if entry["kernel"])
    # Debian's executable: PGO+LTO by its package build, which sysconfig does not record
    assert mine["build"]["pgo"] and mine["build"]["lto"] and "Debian" in mine["build"]["flags_from"], mine["build"]
    assert mine["label"].endswith("(Debian, PGO+LTO)"), mine["label"]
    assert "built with" in result.value() and "PGO+LTO" in result.value()


def test_gilinfo_names_the_kernels_build(kernel):
    kernel.ok("%gilinfo -o info")
    build = kernel.eval("info.build")
    assert build["pgo"] and build["lto"] and not build["debug"], build


@needs_default_build
def test_the_project_builds_are_built_alike_and_say_so(kernel):
    kernel.ok("%gilinfo --interpreters -o found")
    by_path = {entry["executable"]: entry for entry in kernel.eval("found.interpreters")}
    builds = [by_path[python]["build"] for python in (DEFAULT_BUILD, FREE_THREADED) if python in by_path]
    assert builds and all((b["pgo"], b["lto"]) == (builds[0]["pgo"], builds[0]["lto"]) for b in builds), builds
    assert "project build" in by_path[DEFAULT_BUILD]["label"]
