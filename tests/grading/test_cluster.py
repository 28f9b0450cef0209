"""gillab-grade autograde --scheduler: a class graded on a real Dask cluster on 127.0.0.1 (a
dask-scheduler and two dask-worker processes that the tests start and stop) gets the scores a
local --jobs 1 run gives; a worker killed mid-run loses nothing and counts nothing twice; a
hostile submission is contained on a worker as it is locally."""

import json
import os
import re
import signal
import subprocess
import tempfile
import time

import nbformat
import pytest

from test_grading import PREFIX, SOURCE, Listeners, processes_left_under, processes_under, run_command, submissions

pytest.importorskip("distributed", reason="Debian's python3-distributed is not installed (make provision)")
from dask_cluster import LocalCluster  # noqa: E402
from loopback import free_port  # noqa: E402

# Quick submissions (no timeouts to wait out), copies of two of them to make a class of 20, and
# three hostile ones: a fork bomb, one that writes outside its folder, one that calls the grader.
QUICK = ["correct", "wrong", "missing", "garbled", "unanswered", "tampered", "silencer", "exiter", "sysexit",
         "stderr", "sibling", "vandal", "mallory", "spawner"]
COPIES = {f"correct-{n}": "correct" for n in range(3)} | {f"wrong-{n}": "wrong" for n in range(1)}
HOSTILE = ["forkbomb", "scribbler", "caller"]
LIMITS = ["--timeout", "10", "--interrupt-grace", "6", "--memory-limit", "1500", "--sandbox", "on",
          "--process-limit", "64", "--disk-limit", "64", "--file-size-limit", "16"]


def write_class(folder, hostile, only=None):
    """The class's submissions under folder/submitted (only those named, when given)."""
    released = os.path.join(folder, "release")
    assert run_command("release", SOURCE, released, tmpdir=folder).returncode == 0
    built = submissions.build(nbformat.read(os.path.join(released, "ps1.ipynb"), as_version=4), hostile)
    chosen = {name: built[name] for name in QUICK + HOSTILE} | {copy: built[of] for copy, of in COPIES.items()}
    subs = os.path.join(folder, "submitted")
    submissions.write({name: chosen[name] for name in only} if only else chosen, subs)
    return subs


def start_grader(subs, out, cluster, folder):
    """gillab-grade autograde of subs on the cluster, running; its progress on stderr."""
    return subprocess.Popen([os.path.join(PREFIX, "bin", "gillab-grade"), "autograde", subs, "--source", SOURCE,
                             "--out", out, "--scheduler", cluster.address, *LIMITS],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ, TMPDIR=folder))


def expected_scores():
    both = submissions.EXPECTED | submissions.EXPECTED_HOSTILE
    return {name: both[name] for name in QUICK + HOSTILE} | {copy: both[of] for copy, of in COPIES.items()}


def grades_of(out):
    with open(os.path.join(out, "grades.json")) as f:
        return json.load(f)["grades"]


def scores(grades):
    """{student: (status, [(grade id, score, reason) per cell])}: what a run decided, without timings."""
    return {g["student"]: (g["status"], [(c["grade_id"], c["score"], c["reason"]) for c in g["cells"]]) for g in grades}


@pytest.fixture(scope="module")
def workspace():
    folder = tempfile.mkdtemp(prefix="gillab-cluster-test-")
    yield folder
    subprocess.run(["rm", "-rf", folder])


@pytest.fixture(scope="module")
def graded_both_ways(workspace):
    """The same class graded locally with --jobs 1 and on a two-worker cluster."""
    listeners = Listeners()
    outside = [os.path.join(workspace, "escaped"), f"/tmp/escaped-{submissions.SLEEP_MARKER}"]
    hostile = {"peek": [], "port": listeners.port, "unix": listeners.unix_name, "scribble": outside}
    subs = write_class(workspace, hostile)
    tmp = os.path.join(workspace, "tmp")
    os.mkdir(tmp)
    local = run_command("autograde", subs, "--source", SOURCE, "--out", os.path.join(workspace, "local"),
                        "--jobs", "1", *LIMITS, tmpdir=tmp, timeout=600)
    cluster = LocalCluster(PREFIX, tmp)
    try:
        remote = run_command("autograde", subs, "--source", SOURCE, "--out", os.path.join(workspace, "cluster"),
                             "--scheduler", cluster.address, *LIMITS, tmpdir=tmp, timeout=600)
    finally:
        cluster.stop()
        reached = listeners.reached()
        listeners.close()
    leftovers = processes_under(tmp)  # the workers carry tmp too: asked once they are gone
    yield {"local": local, "cluster": remote, "leftovers": leftovers, "reached": reached, "outside": outside,
           "out": os.path.join(workspace, "cluster")}
    for path in outside:
        if os.path.exists(path):
            os.remove(path)


def test_a_class_graded_on_the_cluster_scores_as_a_local_jobs_1_run(graded_both_ways, workspace):
    assert graded_both_ways["local"].returncode == 0, graded_both_ways["local"].stderr
    assert graded_both_ways["cluster"].returncode == 0, graded_both_ways["cluster"].stderr
    local, cluster = grades_of(os.path.join(workspace, "local")), grades_of(graded_both_ways["out"])
    assert len(cluster) >= 20
    assert scores(cluster) == scores(local)
    assert {g["student"]: (g["score"], g["manual_pending"], g["status"]) for g in cluster} == expected_scores()


def test_the_cluster_run_writes_feedback_and_graded_notebooks_as_locally(graded_both_ways, workspace):
    for student in ("correct", "forkbomb"):
        for folder in ("local", "cluster"):
            assert os.path.exists(os.path.join(workspace, folder, "feedback", student, "ps1.html"))
            assert os.path.exists(os.path.join(workspace, folder, "autograded", student, "ps1.ipynb"))
    assert not os.path.exists(os.path.join(graded_both_ways["out"], "autograded", "missing"))


def test_progress_shows_each_notebook_once_as_it_is_graded(graded_both_ways):
    lines = re.findall(r"^graded (\S+)/ps1\.ipynb: ", graded_both_ways["cluster"].stderr, re.M)
    assert sorted(lines) == sorted(expected_scores())


def test_hostile_submissions_on_a_worker_are_contained_as_locally(graded_both_ways):
    assert graded_both_ways["reached"] == [], "no submission reaches the grader's loopback or its unix socket"
    assert not any(os.path.exists(path) for path in graded_both_ways["outside"])
    assert graded_both_ways["leftovers"] == []
    forkbomb = next(g for g in grades_of(graded_both_ways["out"]) if g["student"] == "forkbomb")
    assert forkbomb["sandbox"] == "bubblewrap" and forkbomb["score"] == 1


def test_a_worker_killed_mid_run_loses_nothing_and_counts_nothing_twice(workspace):
    folder = tempfile.mkdtemp(dir=workspace)
    subs = write_class(folder, {"peek": [], "port": free_port(), "unix": "gillab-none", "scribble": []})
    cluster = LocalCluster(PREFIX, folder)
    out = os.path.join(folder, "out")
    try:
        grader = start_grader(subs, out, cluster, folder)
        progress = []
        while len(progress) < 4:  # graded on the client without a kernel, or by a worker
            line = grader.stderr.readline()
            assert line, "the grader ended before the worker was killed"
            progress += [line] if line.startswith("graded ") else []
        cluster.workers[0].send_signal(signal.SIGKILL)
        _, rest = grader.communicate(timeout=600)
        progress += [line for line in rest.splitlines() if line.startswith("graded ")]
    finally:
        cluster.stop()
    assert grader.returncode == 0, rest
    assert sorted(re.match(r"graded (\S+)/", line).group(1) for line in progress) == sorted(expected_scores())
    grades = grades_of(out)
    assert sorted(g["student"] for g in grades) == sorted(expected_scores())
    assert {g["student"]: (g["score"], g["manual_pending"], g["status"]) for g in grades} == expected_scores()
    # The killed worker's nanny starts a replacement, which the cluster's stop ends a moment later.
    assert processes_left_under(folder, 20) == []


def test_a_worker_started_after_the_grader_still_grades_in_its_sandbox(workspace):
    """An instructor may start the workers a moment before grading: --sandbox on waits for the first
    one to join instead of refusing an empty cluster."""
    folder = tempfile.mkdtemp(dir=workspace)
    subs = write_class(folder, {"peek": [], "port": free_port(), "unix": "gillab-none", "scribble": []},
                       only=["correct"])
    cluster = LocalCluster(PREFIX, folder, workers=0)
    out = os.path.join(folder, "out")
    try:
        grader = start_grader(subs, out, cluster, folder)
        time.sleep(3)
        assert grader.poll() is None, "the grader gave up before any worker joined"
        cluster.add_workers(1)
        _, errors = grader.communicate(timeout=600)
    finally:
        cluster.stop()
    assert grader.returncode == 0, errors
    grades = grades_of(out)
    assert {g["student"]: (g["score"], g["manual_pending"], g["status"]) for g in grades} == {
        "correct": submissions.EXPECTED["correct"]}
    assert all(g["sandbox"] == "bubblewrap" for g in grades), grades


@pytest.mark.parametrize("sandbox", ["on", "off"])
def test_a_cluster_no_worker_joins_is_a_one_line_error_after_the_wait(workspace, sandbox):
    folder = tempfile.mkdtemp(dir=workspace)
    subs = write_class(folder, {"peek": [], "port": free_port(), "unix": "gillab-none", "scribble": []},
                       only=["correct"])
    cluster = LocalCluster(PREFIX, folder, workers=0)
    try:
        started = time.monotonic()
        result = run_command("autograde", subs, "--source", SOURCE, "--out", os.path.join(folder, "out"),
                             "--scheduler", cluster.address, "--wait-for-workers", "2", "--sandbox", sandbox,
                             tmpdir=folder)
        waited = time.monotonic() - started
    finally:
        cluster.stop()
    assert result.returncode == 1
    assert result.stderr == (f"gillab-grade: no Dask worker joined the scheduler at {cluster.address} in 2 s "
                             "(--wait-for-workers SECONDS waits longer)\n")
    assert 2 <= waited < 60
