"""%%gilbench --python over the protocol: the same cell's jobs under several interpreters in one
result, the result object's interpreter selector, the child's output, errors, --budget and
interrupt in a child, and the course's headline: CPU-bound threads scale on the free-threaded
3.13t and not on the default 3.13 build of the same patch. Margins are wide: 2 noisy cores."""

import glob
import os
import tempfile
import time

import pytest

from free_cores import spin_seconds
from pythons import DEFAULT_313, FREE_THREADED, PYENV_27, PYENV_39, live_children
from result_bundle import RESULT_MIME

# A second interpreter besides the kernel: pyenv's 3.9, else the project's 3.13.
OTHER = "3.9" if PYENV_39 else "3.13" if os.path.exists(DEFAULT_313) else None
OTHER_PATH = PYENV_39[-1] if PYENV_39 else DEFAULT_313
needs_other = pytest.mark.skipif(OTHER is None, reason="no second CPython (pyenv 3.9 or make free-threaded-python)")

CPU_JOB = "def job(i):\n    total = 0\n    for k in range(300_000):\n        total += k\n    return total + i\n"


def gilbench(kernel, options, body, timeout=240):
    return kernel.execute(f"%%gilbench {options}\n{body}", timeout=timeout)


@needs_other
def test_two_interpreters_give_one_table_and_the_selector_picks_each(kernel):
    result = gilbench(kernel, f"--python kernel,{OTHER} --modes sequential,threads,processes --workers 1,2 --jobs 4 "
                              "--repeats 2 --warmup 0 -o r", CPU_JOB)
    assert result.status == "ok", result.reply["content"]
    data = result.result_data()
    assert {"text/plain", "text/html", RESULT_MIME, "image/png"} <= set(data)
    rows = data[RESULT_MIME]["rows"]
    labels = [row["python"] for row in rows]
    assert len(set(labels)) == 2 and labels[0].startswith("kernel 3.11") and labels[-1].startswith(OTHER)
    # version and build, never a path: the path is in a note and the JSON
    assert all("/bin/" not in label and ("PGO" in label or "build unknown" in label) for label in labels), labels
    assert any(OTHER_PATH in note or os.path.realpath(OTHER_PATH) in note for note in data[RESULT_MIME]["notes"])
    per_interpreter = [(row["mode"], row["workers"]) for row in rows if row["python"] == labels[0]]
    assert per_interpreter == [("sequential", 1), ("threads", 1), ("threads", 2), ("processes", 1), ("processes", 2)]
    assert [(row["mode"], row["workers"]) for row in rows if row["python"] == labels[-1]] == per_interpreter
    interpreters = kernel.eval("[[i['requested'], i['kernel'], i['interpreter']['version']] for i in r.interpreters]")
    assert interpreters[0][:2] == ["kernel", True] and interpreters[0][2].startswith("3.11")
    assert interpreters[1][:2] == [OTHER, False] and interpreters[1][2].startswith(OTHER)
    for python in ("None", "'kernel'", repr(OTHER)):
        assert kernel.eval(f"r.speedup('sequential', python={python})") == pytest.approx(1.0)
        assert kernel.eval(f"r.wall('threads', 2, python={python}) > 0")
        assert kernel.eval(f"r.cpu('processes', 2, python={python}) > 0")
        assert kernel.eval(f"r.best(python={python})[0] in ('sequential', 'threads', 'processes')")
    # each interpreter's figures are its own, not the kernel's repeated
    assert kernel.eval(f"r.wall('threads', 2) != r.wall('threads', 2, python={OTHER!r})")
    assert kernel.eval("r.results_match") is True
    missing = kernel.execute("r.wall('threads', 2, python='3.6')")
    assert missing.reply["content"]["ename"] == "KeyError" and "measured: kernel" in missing.reply["content"]["evalue"]
    # one series and one sequential line per interpreter in the chart
    assert f"threads \u00b7 {labels[-1]}" in str(data["application/vnd.vegalite.v5+json"])
    # live progress comes from the child too: which configuration, which run
    progress = [m["content"]["data"]["text/plain"] for m in result.messages if m["msg_type"] == "update_display_data"]
    assert any(f"{labels[-1]}: processes x 2 workers, 4 jobs, run 2/2 (configuration 5 of 5)" in p for p in progress), progress


@needs_other
def test_the_child_imports_the_cell_and_its_prints_reach_the_notebook(kernel):
    body = ("import sys\nprint('setup under', '.'.join(map(str, sys.version_info[:2])))\n"
            "def job(i):\n    print('job', i)\n    return i\n")
    result = gilbench(kernel, f"--python {OTHER_PATH} --modes sequential,threads --workers 2 --jobs 2 --repeats 1 "
                              "--warmup 0", body)
    assert result.status == "ok", result.reply["content"]
    out = result.stream("stdout")
    assert f"setup under {OTHER}" in out and "job 1" in out
    # the kernel did not run the cell: only the child measured
    assert "setup under 3.11" not in out
    assert result.stream("stderr") == ""


@pytest.mark.parametrize("python, expected", [
    ("python2.5", "no python2.5"),
    ("/bin/false", "did not answer as a Python"),
    ("/no/such/python", "no executable file there"),
] + ([("2.7", "3.8 or newer")] if PYENV_27 else []))
def test_a_missing_or_unusable_interpreter_is_a_one_line_error(kernel, python, expected):
    result = gilbench(kernel, f"--python kernel,{python} --modes sequential --jobs 1 --repeats 1", CPU_JOB)
    assert result.status == "error"
    content = result.reply["content"]
    assert content["ename"] == "UsageError", content
    assert expected in content["evalue"] and "\n" not in content["evalue"]
    assert result.stream("stderr") == ""
    assert kernel.eval("1+1") == 2


@pytest.mark.skipif(not PYENV_39, reason="no pyenv CPython 3.9 on this machine")
def test_a_cell_the_child_cannot_parse_and_a_failing_job_are_reported(kernel):
    match_statement = "def job(i):\n    match i:\n        case _:\n            return i\n"
    result = gilbench(kernel, "--python 3.9 --modes sequential --jobs 1 --repeats 1", match_statement)
    assert result.reply["content"]["ename"] == "UsageError", result.reply["content"]
    assert "not valid Python 3.9" in result.reply["content"]["evalue"]
    result = gilbench(kernel, "--python 3.9 --modes sequential --jobs 1 --repeats 1",
                      "import no_such_module_here\ndef job(i):\n    return i\n")
    assert result.reply["content"]["ename"] == "UsageError", result.reply["content"]
    assert "imports fail under Python 3.9" in result.reply["content"]["evalue"]
    assert "no_such_module_here" in result.reply["content"]["evalue"]
    result = gilbench(kernel, "--python 3.9 --modes threads --workers 2 --jobs 4 --repeats 1",
                      "def job(i):\n    return 1 / (i - 2)\n")
    assert result.status == "error"
    evalue = result.reply["content"]["evalue"]
    assert "job(2) raised ZeroDivisionError in mode threads with 2 workers" in evalue and "3.9" in evalue
    assert result.stream("stderr") == ""


@needs_other
def test_budget_stops_a_child_run_and_skips_larger_jobs(kernel):
    body = "def job(i):\n    while True:\n        pass\n"
    started = time.monotonic()
    result = gilbench(kernel, f"--python {OTHER} --modes sequential,threads --workers 2 --jobs 2,4 --repeats 1 "
                              "--warmup 0 --budget 0.3s -o r", body, timeout=60)
    assert result.status == "ok", result.reply["content"]
    assert time.monotonic() - started < 30
    flags = [(row["mode"], row["jobs"], row["flags"]) for row in result.result_data()[RESULT_MIME]["rows"]]
    assert [f for _, jobs, f in flags if jobs in (2, 4) and "stopped at --budget" in f]
    assert any("not run" in f for _, _, f in flags)
    assert kernel.eval("r.wall('threads', 2, jobs=2) is None") is True
    assert kernel.eval("r.over_budget") is True


@needs_other
def test_interrupt_during_a_child_run_kills_and_reaps_the_child(kernel):
    before = live_children(kernel)
    temp_before = set(glob.glob(os.path.join(tempfile.gettempdir(), "gillab-*")))
    for modes in ("threads", "processes --start-method forkserver"):
        kernel.interrupt_after(2.0)
        started = time.monotonic()
        result = gilbench(kernel, f"--python {OTHER} --modes {modes} --workers 2 --jobs 4 --repeats 100",
                          "def job(i):\n    while True:\n        pass\n", timeout=30)
        assert result.reply["content"]["ename"] == "KeyboardInterrupt", result.reply["content"]
        assert time.monotonic() - started < 2.0 + 3.0
        assert kernel.eval("1+1") == 2
        time.sleep(0.3)
        assert live_children(kernel) <= before, modes
    # the cell's module folder, with the child's multiprocessing folders inside, is gone
    assert set(glob.glob(os.path.join(tempfile.gettempdir(), "gillab-*"))) <= temp_before


@needs_other
def test_memory_is_measured_in_a_fresh_process_of_the_child_interpreter(kernel):
    result = gilbench(kernel, f"--python kernel,{OTHER} --modes threads --workers 2 --jobs 2 --repeats 1 --warmup 0 "
                              "--memory -o r", "import time\ndef job(i):\n    time.sleep(0.01)\n")
    assert result.status == "ok", result.reply["content"]
    for python in ("'kernel'", repr(OTHER)):
        assert 1 < kernel.eval(f"r.peak_rss_mib('threads', 2, python={python})") < 500


@pytest.mark.skipif(not os.path.exists(DEFAULT_313), reason="the project's 3.13 not built (make free-threaded-python)")
def test_presets_run_under_another_interpreter(kernel):
    result = kernel.execute("%gilbench --preset sleep --python 3.13 --workers 8 --repeats 1 --warmup 0 -o r", timeout=120)
    assert result.status == "ok", result.reply["content"]
    rows = result.result_data()[RESULT_MIME]["rows"]
    assert {row["python"] for row in rows} == {rows[0]["python"]} and "3.13" in rows[0]["python"]
    assert "published_wall" in rows[0] or "published_speedup" in rows[0]
    # 8 sleeps of 50 ms overlap in 8 threads of the child too
    assert kernel.eval("r.speedup('threads', 8, python='3.13')") > 3


@pytest.mark.skipif(not (os.path.exists(FREE_THREADED) and os.path.exists(DEFAULT_313)),
                    reason="the project's 3.13 builds are missing (make free-threaded-python)")
def test_cpu_bound_threads_scale_on_free_threaded_313_and_not_on_the_default_build(kernel):
    # Published: x1.76 on 2 cores for 3.13t. Whatever the load, the default build's threads never
    # use much more than one core (only one of them runs Python at a time): checked every time.
    # Scaling needs two free cores for the whole measurement, checked before and after each attempt
    # with two plain processes; an attempt during which a neighbour took a core proves nothing
    # either way. On 3.13t two threads show it by keeping more than 1.5 cores busy (Python in both
    # at once) or by a clear speed-up over the default build; it must show in one of the attempts,
    # and fails only when it did not in three attempts that had the cores.
    def cores_free():
        # Two processes burning 0.3 s of CPU each finish in about 0.3 s only with two idle cores;
        # beside a steady neighbour they share the cores and take 0.45 s or more.
        return len(os.sched_getaffinity(0)) >= 2 and spin_seconds(2) < 0.42

    attempts = []
    for _ in range(5):
        free_before = cores_free()
        result = gilbench(kernel, "--python 3.13,3.13t --modes sequential,threads --workers 2 --jobs 4 --repeats 3 -o r",
                          CPU_JOB.replace("300_000", "1_000_000"))
        free_after = cores_free()
        assert result.status == "ok", result.reply["content"]
        info = kernel.eval("[[i['interpreter']['free_threaded_build'], i['interpreter']['gil_enabled']] for i in r.interpreters]")
        assert info == [[False, True], [True, False]]
        assert kernel.eval("r.cpu('threads', 2, python='3.13') / r.wall('threads', 2, python='3.13')") < 1.3
        default, free_threaded, free_cores = kernel.eval(
            "r.speedup('threads', 2, python='3.13'), r.speedup('threads', 2, python='3.13t'), "
            "r.cpu('threads', 2, python='3.13t') / r.wall('threads', 2, python='3.13t')")
        if free_cores > 1.5 or (free_threaded > 1.3 and free_threaded > default + 0.2):
            return
        attempts.append((round(default, 2), round(free_threaded, 2), round(free_cores, 2),
                         "cores free" if free_before and free_after else "cores busy"))
    if sum(1 for a in attempts if a[-1] == "cores free") < 3:
        pytest.skip(f"two cores were not free through enough attempts (speed-up 3.13, 3.13t, 3.13t cores): {attempts}")
    pytest.fail(f"threads did not scale on 3.13t (speed-up 3.13, 3.13t, 3.13t cores): {attempts}")
