"""Debian unstable's own CPython 3.14 and 3.15 (make sid-pythons) as --python interpreters over the
protocol: each magic that takes --python gives rows for both, run under bubblewrap in their root
with the cell's folder and the working folder reachable, and the notes say so; %gilinfo
--interpreters shows what 3.14 changes (forkserver) and what 3.13t is (no GIL)."""

import pytest

from pythons import FREE_THREADED, needs_free_threaded, needs_sid_pythons
from result_bundle import RESULT_MIME

pytestmark = needs_sid_pythons

CPU_JOB = "def job(i):\n    total = 0\n    for k in range(200_000):\n        total += k\n    return total + i\n"


def measured_under_314_and_315(kernel, code):
    """Runs a magic given --python 3.14,3.15: its rows, one block for each in that order, and the
    notes that say where they ran. Returns the rows by their python label."""
    result = kernel.execute(code, timeout=240)
    assert result.status == "ok", result.reply["content"]
    assert result.stream("stderr") == ""
    by_python = {}
    for row in result.result_data()[RESULT_MIME]["rows"]:
        by_python.setdefault(row["python"], []).append(row)
    labels = list(by_python)
    assert len(labels) == 2, labels
    # labelled by version and build: "3.14.10 (Debian unstable, PGO+LTO)"
    assert labels[0].startswith("3.14.") and "Debian unstable" in labels[0], labels
    assert labels[1].startswith("3.15.") and "Debian unstable" in labels[1], labels
    text = result.value()
    assert "Debian unstable's own 3.14" in text and "Debian unstable's own 3.15" in text and "bubblewrap" in text
    return result, by_python


def test_gilinfo_interpreters_shows_forkserver_for_314_and_fork_for_the_kernel(kernel):
    result = kernel.execute("%gilinfo --interpreters -o found")
    assert result.status == "ok", result.reply["content"]
    found = kernel.eval("found.interpreters")
    sid = [entry for entry in found if entry["found_in"] == "Debian unstable root (bwrap)"]
    versions = {entry["version"][:4]: entry for entry in sid}
    assert {"3.14", "3.15"} <= set(versions), sid
    assert versions["3.14"]["default_start_method"] == "forkserver"
    assert versions["3.15"]["default_start_method"] == "forkserver"
    assert versions["3.14"]["gil_enabled"] is True and versions["3.14"]["switch_interval_ms"] == pytest.approx(5.0)
    mine = [entry for entry in found if entry["kernel"]][0]
    assert mine["default_start_method"] == "fork" and mine["switch_interval_ms"] == pytest.approx(5.0)
    assert "forkserver" in result.value() and "default start method" in result.value()


@needs_free_threaded
def test_gilinfo_interpreters_names_313t_gil_off(kernel):
    kernel.ok("%gilinfo --interpreters -o found")
    by_path = {entry["executable"]: entry for entry in kernel.eval("found.interpreters")}
    assert by_path[FREE_THREADED]["gil_enabled"] is False
    assert by_path[FREE_THREADED]["default_start_method"] == "fork"


def test_gilbench_runs_threads_and_a_process_pool_under_314_and_315(kernel):
    # A process pool under 3.14's forkserver needs the cell's folder writable inside the root.
    _, by_python = measured_under_314_and_315(kernel, "%%gilbench --python 3.14,3.15 --modes sequential,threads,processes "
                                                      f"--workers 2 --jobs 2 --repeats 1 --warmup 0 -o r\n{CPU_JOB}")
    for rows in by_python.values():
        assert [row["mode"] for row in rows] == ["sequential", "threads", "processes"]
    assert kernel.eval("r.results_match") is True
    assert kernel.eval("r.wall('processes', 2, python='3.14') > 0")
    executables = kernel.eval("[i['interpreter']['executable'] for i in r.interpreters]")
    assert executables == ["/usr/bin/python3.14", "/usr/bin/python3.15"]  # as they see themselves, inside the root


def test_race_gives_rows_under_314_and_315(kernel):
    measured_under_314_and_315(kernel, "%%race --python 3.14,3.15 --threads 2 --iterations 20000 --runs 1 "
                                       "--modes unlocked,lock -o r\nn = 0\nn += 1\n")
    assert kernel.eval("r.lost('lock', python='3.14')") == 0  # the median of its runs


def test_switchinterval_sweep_gives_rows_under_314_and_315(kernel):
    _, by_python = measured_under_314_and_315(kernel, "%switchinterval --sweep 5ms,1ms --duration 300ms --python 3.14,3.15 -o r")
    assert all(len(rows) == 2 for rows in by_python.values())
    assert kernel.eval("r.handovers('1ms', python='3.15') > 0")


def test_heartbeat_gives_rows_under_314_and_315_and_their_prints_arrive(kernel):
    result, _ = measured_under_314_and_315(kernel, "%%heartbeat --python 3.14,3.15 -o hb\nimport sys, time\n"
                                                   "print('beat from', sys.version_info[:2])\ntime.sleep(0.3)\n")
    assert "beat from (3, 14)" in result.stream("stdout") and "beat from (3, 15)" in result.stream("stdout")
    assert max(kernel.eval("hb.gaps(python='3.14')")) > 250


def test_a_cell_reads_a_file_of_the_working_folder_under_314(kernel):
    kernel.ok("import os, tempfile\nhere = tempfile.mkdtemp(dir=os.path.expanduser('~'))\nos.chdir(here)\n"
              "open('rounds.txt', 'w').write('7')")
    result = kernel.execute("%%race --python 3.14 --threads 2 --iterations 100 --runs 1 --modes lock -o r\n"
                            "n = int(open('rounds.txt').read())\nn += 1\n", timeout=120)
    assert result.status == "ok", result.reply["content"]
    kernel.ok("import shutil\nos.chdir(os.path.expanduser('~'))\nshutil.rmtree(here)")
