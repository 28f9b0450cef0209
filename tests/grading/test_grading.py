"""gillab-grade end to end: release the fixture problem set, fabricate a class
of submissions (right, wrong, missing, tampered, hostile), autograde them with
the installed command over the real gillab kernel, and check every score and
that nothing is left behind."""

import csv
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import nbformat
import psutil
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PREFIX = os.path.join(REPO, "build", "prefix")
COMMAND = os.path.join(PREFIX, "bin", "gillab-grade")
SOURCE = os.path.join(HERE, "fixtures", "source")
sys.path.insert(0, os.path.join(PREFIX, "lib", "gillab", "python"))
sys.path.insert(0, HERE)

from gillab_grade import cli  # noqa: E402
from gillab_grade import nbformat_grader as fmt  # noqa: E402
import submissions  # noqa: E402


def run_command(*args, tmpdir, timeout=120, **environment):
    env = dict(os.environ, TMPDIR=tmpdir, **environment)
    with subprocess.Popen([COMMAND, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=env) as proc:
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.terminate()  # the grader cleans up on SIGTERM: no kernel or process outlives a failed test
            proc.communicate(timeout=60)
            raise
    return subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr)


def cell(nb, grade_id):
    return next(c for c in nb.cells if fmt.grade_id(c) == grade_id)


def tree_digest(folder):
    digest = hashlib.sha256()
    for root, dirs, files in sorted(os.walk(folder)):
        for name in sorted(files):
            path = os.path.join(root, name)
            digest.update(path.encode())
            with open(path, "rb") as f:
                digest.update(f.read())
    return digest.hexdigest()


def processes_under(tmpdir):
    """Live processes started for this test's grader: their TMPDIR lies under
    tmpdir (unconfined kernels), they hold a file under it open (a sandbox's
    processes hold its log), or they carry the submissions' marker."""
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.status() == psutil.STATUS_ZOMBIE:
                continue
            if proc.environ().get("TMPDIR", "").startswith(tmpdir) or \
                    submissions.SLEEP_MARKER in " ".join(proc.cmdline()) or \
                    any(f.path.startswith(tmpdir + "/") for f in proc.open_files()):
                found.append(proc)
        except psutil.Error:
            pass
    return found


def processes_left_under(tmpdir, seconds):
    """processes_under(tmpdir) once it is empty, or as it is after `seconds`: what is killed
    goes within moments, not at once."""
    deadline = time.monotonic() + seconds
    while processes_under(tmpdir) and time.monotonic() < deadline:
        time.sleep(0.2)
    return processes_under(tmpdir)


def marked_process_under(tmpdir):
    """Whether the stuck cell's marked child is running for this grader (processes come and go
    while they are read)."""
    for proc in processes_under(tmpdir):
        try:
            if submissions.SLEEP_MARKER in " ".join(proc.cmdline()):
                return True
        except psutil.Error:
            pass
    return False


class Listeners:
    """A TCP listener on the loopback and an abstract unix socket, both on the
    grader's side of the sandbox: no submission may reach them."""

    def __init__(self):
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.port = self.tcp.getsockname()[1]
        self.unix_name = f"gillab-grading-test-{os.getpid()}-{self.port}"
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind("\0" + self.unix_name)
        self.unix.listen()

    def reached(self):
        """Which of them were connected to."""
        reached = []
        for name, listener in (("tcp", self.tcp), ("unix", self.unix)):
            listener.setblocking(False)
            try:
                listener.accept()[0].close()
                reached.append(name)
            except BlockingIOError:
                pass
        return reached

    def close(self):
        self.tcp.close()
        self.unix.close()


@pytest.fixture(scope="module")
def workspace():
    folder = tempfile.mkdtemp(prefix="gillab-grading-test-")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def released(workspace):
    out = os.path.join(workspace, "release")
    result = run_command("release", SOURCE, out, tmpdir=workspace)
    assert result.returncode == 0, result.stderr
    return out


# The batch's sandbox limits, small enough for the hostile submissions to reach quickly.
PROCESS_LIMIT, DISK_LIMIT_MB, FILE_LIMIT_MB = 64, 64, 16


@pytest.fixture(scope="module")
def batch(workspace, released):
    """The autograde run over the whole class, hostile submissions included,
    shared by the tests below."""
    student_nb = nbformat.read(os.path.join(released, "ps1.ipynb"), as_version=4)
    subs = os.path.join(workspace, "submitted")
    grader_tmp = os.path.join(workspace, "tmp")
    os.mkdir(grader_tmp)
    listeners = Listeners()
    marker = f"escaped-{submissions.SLEEP_MARKER}"
    outside = [os.path.join(subs, "correct", "ps1.ipynb"), os.path.join(subs, marker),
               os.path.join(grader_tmp, marker), os.path.join(workspace, marker), f"/usr/{marker}", f"/{marker}",
               f"/tmp/{marker}", f"/var/tmp/{marker}", f"/dev/shm/{marker}"]
    hostile = {"peek": [os.path.join(subs, "correct", "ps1.ipynb"), os.path.join(SOURCE, "ps1.ipynb"),
                        os.path.join(grader_tmp, "gillab-grade-*", "*"), subs, workspace, "/home/*", "/root"],
               "port": listeners.port, "unix": listeners.unix_name, "scribble": outside}
    submissions.write(submissions.build(student_nb, hostile), subs)
    before = tree_digest(subs)
    out = os.path.join(workspace, "graded")
    try:
        result = run_command("autograde", subs, "--source", SOURCE, "--out", out, "--timeout", "3",
                             "--interrupt-grace", "6", "--jobs", "2", "--memory-limit", "1500", "--sandbox", "on",
                             "--process-limit", str(PROCESS_LIMIT), "--disk-limit", str(DISK_LIMIT_MB),
                             "--file-size-limit", str(FILE_LIMIT_MB), tmpdir=grader_tmp, timeout=400)
        reached = listeners.reached()
    finally:
        listeners.close()
    with open(os.path.join(out, "grades.json")) as f:
        grades = {g["student"]: g for g in json.load(f)["grades"]}
    yield {"result": result, "out": out, "grades": grades, "subs": subs, "subs_digest": before,
           "tmp": grader_tmp, "reached": reached, "outside": outside}
    for path in outside[1:]:  # only if a test failed: nothing of it may stay on the machine
        if os.path.exists(path):
            os.remove(path)


def graded_notebook(batch, student):
    return nbformat.read(os.path.join(batch["out"], "autograded", student, "ps1.ipynb"), as_version=4)


# -- release

def test_release_stubs_solutions_drops_hidden_tests_and_clears_outputs(released):
    nb = nbformat.read(os.path.join(released, "ps1.ipynb"), as_version=4)
    text = nbformat.writes(nb)
    assert "BEGIN SOLUTION" not in text and "HIDDEN TESTS" not in text
    assert "i * i" not in text and "Threads take turns" not in text
    assert cell(nb, "squares").source == ('def squares(n):\n    """The squares of 0..n-1."""\n'
                                          "    # YOUR CODE HERE\n    raise NotImplementedError()")
    assert cell(nb, "explain").source == "YOUR ANSWER HERE"
    assert cell(nb, "test_squares").source == "assert squares(4) == [0, 1, 4, 9]"
    assert all(c.outputs == [] and c.execution_count is None for c in nb.cells if c.cell_type == "code")
    assert os.path.exists(os.path.join(released, "data.txt"))


def test_release_adds_nbgraders_checksums_cell_types_and_locks(released):
    nb = nbformat.read(os.path.join(released, "ps1.ipynb"), as_version=4)
    for c in nb.cells:
        meta = c.metadata.nbgrader
        assert meta["cell_type"] == c.cell_type
        # nbgrader's recipe, spelled out independently of the implementation.
        digest = hashlib.md5()
        for part in (c.source, c.cell_type, str(meta["grade"]), str(meta["solution"]),
                     str(fmt.is_locked(c)), meta["grade_id"]):
            digest.update(part.encode())
        if meta["grade"]:
            digest.update(str(float(meta["points"])).encode())
        assert meta["checksum"] == digest.hexdigest(), meta["grade_id"]
        assert c.metadata["deletable"] is False
    assert cell(nb, "test_squares").metadata["editable"] is False
    assert "editable" not in cell(nb, "squares").metadata


# Checksums real nbgrader wrote into a released notebook of its own test data
# (jupyter/nbgrader, nbgrader/tests/apps/files/submitted-unchanged.ipynb).
@pytest.mark.parametrize("cell_type, source, flags, checksum", [
    ("code", "# YOUR CODE HERE\nraise NotImplementedError()",
     dict(grade=False, solution=True, locked=False, grade_id="set_a"), "3d6aac4236f8e1ec85380e692dcc51b1"),
    ("code", 'print("Success!")',
     dict(grade=True, solution=False, locked=False, grade_id="foo", points=1.0), "8bb5c7c6f388fae724e5ef53dc4deeb2"),
    ("markdown", "YOUR ANSWER HERE",
     dict(grade=True, solution=True, locked=False, grade_id="baz", points=2.0), "9e51fd0022c24c4105e38369d2f9d751"),
    ("markdown", "This cell shouldn't be changed.",
     dict(grade=False, solution=False, locked=True, grade_id="ro2"), "0122b50e5eaf367b9874d07ebaf80521"),
])
def test_checksums_equal_those_nbgrader_computes(cell_type, source, flags, checksum):
    new_cell = nbformat.v4.new_code_cell if cell_type == "code" else nbformat.v4.new_markdown_cell
    c = new_cell(source, metadata={"nbgrader": dict(schema_version=3, **flags)})
    assert fmt.compute_checksum(c) == checksum


@pytest.mark.parametrize("change, message", [
    (lambda nb: cell(nb, "test_workers").metadata.nbgrader.update(grade_id="test_squares"),
     "cell 5 ('test_squares'): duplicate grade_id (first used by cell 4)"),
    (lambda nb: cell(nb, "test_partial").metadata.nbgrader.pop("points"),
     "cell 6 ('test_partial'): 'points' is required on a grade or task cell"),
    (lambda nb: cell(nb, "squares").metadata.nbgrader.update(schema_version=2),
     "cell 2 ('squares'): schema_version is 2; only 3 is accepted"),
    (lambda nb: cell(nb, "squares").metadata.nbgrader.update(weight=1),
     "cell 2 ('squares'): unknown nbgrader keys ['weight']"),
    (lambda nb: cell(nb, "test_workers").metadata.nbgrader.update(points=-1),
     "cell 5 ('test_workers'): points must be a number >= 0, not -1"),
    (lambda nb: cell(nb, "squares").metadata.nbgrader.update(grade_id="bad id"),
     "cell 2 ('bad id'): grade_id 'bad id' is missing or invalid"),
    (lambda nb: setattr(cell(nb, "squares"), "source", "### BEGIN SOLUTION\nx = 1"),
     "cell 2 ('squares'): '### BEGIN SOLUTION' without '### END SOLUTION'"),
    (lambda nb: setattr(nb.cells[0], "source", "### BEGIN SOLUTION\nx\n### END SOLUTION"),
     "cell 0 ('intro'): solution region in a cell not marked as a solution cell"),
])
def test_release_rejects_bad_metadata_with_one_line_errors(workspace, change, message, capsys):
    source = tempfile.mkdtemp(dir=workspace)
    nb = nbformat.read(os.path.join(SOURCE, "ps1.ipynb"), as_version=4)
    change(nb)
    nbformat.write(nb, os.path.join(source, "ps1.ipynb"))
    out = os.path.join(source, "out")
    assert cli.main(["release", source, out]) == 1  # in-process: the command's own code, installed
    stderr = capsys.readouterr().err
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gillab-grade: ps1.ipynb: " + message), stderr
    assert not os.path.exists(out), "nothing is written when a notebook is invalid"


# -- autograde

def test_autograde_scores_every_submission_by_nbgraders_rules(batch):
    assert batch["result"].returncode == 0, batch["result"].stderr
    got = {s: (g["score"], g["manual_pending"], g["status"]) for s, g in batch["grades"].items()}
    assert got == submissions.EXPECTED | submissions.EXPECTED_HOSTILE
    assert all(g["max_score"] == 6 and g["manual_max"] == 2 for g in batch["grades"].values())


def test_gradebook_is_written_as_csv_json_and_a_text_table(batch):
    with open(os.path.join(batch["out"], "grades.csv")) as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    assert set(rows) == set(submissions.EXPECTED) | set(submissions.EXPECTED_HOSTILE)
    assert float(rows["wrong"]["score"]) == 2.5 and rows["missing"]["status"] == "missing"
    table = batch["result"].stdout
    header = ["student", "notebook", "score", "max", "manual", "status", "sandbox", "why"]
    assert table.splitlines()[0].split() == header
    assert any(line.split()[:3] == ["wrong", "ps1.ipynb", "2.5"] for line in table.splitlines())
    cells = {c["grade_id"]: c for c in batch["grades"]["wrong"]["cells"]}
    assert cells["test_partial"]["score"] == 1.5 and cells["test_partial"]["reason"] == "partial credit 1.5"
    assert cells["test_squares"]["reason"].startswith("AssertionError")


def test_hidden_tests_run_at_grading(batch):
    assert "assert squares(0) == []" in cell(graded_notebook(batch, "correct"), "test_squares").source


def test_edited_deleted_and_forged_test_cells_are_restored_and_reported(batch):
    notes = batch["grades"]["tampered"]["notes"]
    assert "cell 'test_squares' was edited (checksum mismatch); the original was restored" in notes
    assert "cell 'test_partial' was deleted; the instructor's version was restored" in notes
    assert "a cell claimed a copy of grade id 'test_workers'; it is graded as an ordinary cell" in notes
    nb = graded_notebook(batch, "tampered")
    assert cell(nb, "test_squares").metadata.nbgrader["points"] == 2
    assert [fmt.grade_id(c) for c in nb.cells if fmt.is_test(c)] == ["test_squares", "test_workers", "test_partial"]


def test_silenced_tracebacks_do_not_make_failing_tests_pass(batch):
    # Replacing showtraceback hides the traceback, but the gillab kernel still
    # replies with an error, so the failing tests score 0 as they should.
    tests = {c["grade_id"]: c for c in batch["grades"]["silencer"]["cells"] if c["kind"] == "test"}
    assert tests["test_squares"]["reason"] != "passed" and tests["test_partial"]["reason"] != "passed", tests


def test_infinite_loop_is_interrupted_and_the_rest_still_runs(batch):
    grade = batch["grades"]["loop"]
    assert "cell 2 exceeded the 3 s cell timeout; interrupted" in grade["notes"]
    assert grade["seconds"] < 30


def test_a_kernel_deaf_to_the_interrupt_is_replaced(batch):
    notes = batch["grades"]["deaf"]["notes"]
    assert notes == ["cell 2 exceeded the 3 s cell timeout; interrupted",
                     "the kernel did not recover from the interrupt in cell 2; restarted for the remaining cells"]


def test_the_notebook_budget_stops_a_run_and_unrun_tests_score_zero(workspace, released):
    nb = nbformat.read(os.path.join(released, "ps1.ipynb"), as_version=4)
    cell(nb, "squares").source = "while True:\n    pass"
    subs = tempfile.mkdtemp(dir=workspace)
    os.mkdir(os.path.join(subs, "slow"))
    nbformat.write(nb, os.path.join(subs, "slow", "ps1.ipynb"))
    out = os.path.join(subs, "out")
    result = run_command("autograde", subs, "--source", SOURCE, "--out", out, "--notebook-timeout", "4",
                         tmpdir=workspace)
    assert result.returncode == 0, result.stderr
    with open(os.path.join(out, "grades.json")) as f:
        grade = json.load(f)["grades"][0]
    assert grade["score"] == 0 and grade["seconds"] < 20
    assert "cell 2 exceeded the notebook's time budget; interrupted" in grade["notes"]
    assert {c["reason"] for c in grade["cells"] if c["kind"] == "test"} == \
        {"NotRun: the notebook's time budget ran out before this cell"}


def test_the_memory_limit_turns_a_huge_allocation_into_a_memory_error(batch):
    assert "MemoryError" in json.dumps(graded_notebook(batch, "hog").cells[2])
    # The kernel survives its MemoryError; the report names the limit.
    assert batch["grades"]["hog"]["notes"] == ["cell 2 reached the address-space limit (1500 MiB)"]


def test_a_grader_stopped_mid_run_leaves_nothing_behind(workspace, released):
    nb = nbformat.read(os.path.join(released, "ps1.ipynb"), as_version=4)
    cell(nb, "squares").source = (f"import subprocess\nsubprocess.Popen(['/bin/sleep', '{submissions.SLEEP_MARKER}'],"
                                  " env={}, start_new_session=True)\nwhile True:\n    pass")
    subs = tempfile.mkdtemp(dir=workspace)
    os.mkdir(os.path.join(subs, "stuck"))
    nbformat.write(nb, os.path.join(subs, "stuck", "ps1.ipynb"))
    grader_tmp = tempfile.mkdtemp(dir=workspace)
    grader = subprocess.Popen([COMMAND, "autograde", subs, "--source", SOURCE, "--out", os.path.join(subs, "out")],
                              env=dict(os.environ, TMPDIR=grader_tmp), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not marked_process_under(grader_tmp):
            assert time.monotonic() < deadline and grader.poll() is None, "the stuck cell never started"
            time.sleep(0.2)
        grader.terminate()
        _, stderr = grader.communicate(timeout=60)
        assert grader.returncode == 130 and "gillab-grade: stopped" in stderr, stderr
        assert processes_under(grader_tmp) == []
        assert os.listdir(grader_tmp) == []
    finally:  # a failure here must not leave its grader to the tests that follow
        for proc in [grader, *processes_under(grader_tmp)]:
            try:
                proc.kill()
            except (ProcessLookupError, psutil.Error):
                pass
        grader.wait(timeout=60)


def test_kernel_death_gets_a_fresh_kernel_for_the_remaining_cells(batch):
    assert "the kernel died in cell 2; a fresh kernel ran the remaining cells" in batch["grades"]["exiter"]["notes"]
    nb = graded_notebook(batch, "exiter")
    assert "DeadKernelError" in json.dumps(nb.cells[2])
    assert "NameError" in json.dumps(cell(nb, "test_workers"))


def test_sys_exit_and_stderr_score_zero_on_the_affected_tests(batch):
    assert {c["grade_id"]: c["score"] for c in batch["grades"]["sysexit"]["cells"]}["test_workers"] == 1
    reasons = {c["grade_id"]: c["reason"] for c in batch["grades"]["stderr"]["cells"]}
    assert reasons["test_squares"] == "wrote to stderr: debug"


def test_huge_output_is_capped_in_the_graded_notebook(batch):
    path = os.path.join(batch["out"], "autograded", "huge", "ps1.ipynb")
    assert os.path.getsize(path) < 2_000_000
    assert "bytes of output dropped (cap 1000000 bytes per cell)" in nbformat.writes(graded_notebook(batch, "huge"))


def test_a_submission_cannot_reach_or_overwrite_another(batch):
    text = json.dumps(graded_notebook(batch, "sibling").cells[2])
    assert "siblings found: []" in text
    assert "data: instructor data" in text, "the instructor's data files are copied in"
    assert tree_digest(batch["subs"]) == batch["subs_digest"], "submissions are never run in place"


def test_spawned_processes_are_killed_and_nothing_is_left_behind(batch):
    assert any("leftover process(es) killed" in n for n in batch["grades"]["spawner"]["notes"])
    assert processes_under(batch["tmp"]) == []
    assert os.listdir(batch["tmp"]) == [], "every private folder is removed"
    assert os.listdir(os.path.join(os.path.dirname(batch["tmp"]), "release"))  # sanity: the workspace is intact


def cell_text(batch, student, index=2):
    return "".join(o.get("text", "") for o in graded_notebook(batch, student).cells[index].outputs)


def test_every_notebook_is_reported_with_the_sandbox_it_ran_in(batch):
    modes = {s: g["sandbox"] for s, g in batch["grades"].items()}
    assert modes.pop("missing") == "-" and modes.pop("garbled") == "-", "never run"
    assert set(modes.values()) == {"bubblewrap"}, modes
    with open(os.path.join(batch["out"], "grades.csv")) as f:
        assert {r["sandbox"] for r in csv.DictReader(f)} == {"bubblewrap", "-"}
    page = open(os.path.join(batch["out"], "feedback", "correct", "ps1.html")).read()
    assert "Run in: a sandbox (no network" in page


def test_a_classmates_work_and_the_graders_files_are_out_of_reach_by_absolute_path(batch):
    assert "peeked: []" in cell_text(batch, "peeker")


def test_a_submission_reaches_no_listener_on_the_graders_machine(batch):
    text = cell_text(batch, "caller")
    assert "reached: []" in text and "tcp: ConnectionRefusedError" in text, text
    assert batch["reached"] == []


def test_writes_outside_its_folder_land_nowhere_on_the_machine(batch):
    text = cell_text(batch, "scribbler")
    # Its own /tmp and /dev/shm take the writes, and vanish with the sandbox.
    assert f"written: ['{batch['outside'][-3]}', '{batch['outside'][-1]}']" in text, text
    assert [path for path in batch["outside"][1:] if os.path.exists(path)] == []
    assert tree_digest(batch["subs"]) == batch["subs_digest"]


def test_a_fork_bomb_is_held_by_the_process_limit_and_reported(batch):
    grade = batch["grades"]["forkbomb"]
    notes = grade["notes"]
    assert f"cell 2 reached the process limit ({PROCESS_LIMIT} processes and threads)" in notes, grade
    bomb = graded_notebook(batch, "forkbomb").cells[2]
    assert [o["ename"] for o in bomb.outputs if o["output_type"] == "error"] == ["BlockingIOError"], bomb.outputs
    # Its error, not a timeout, ends the cell; the kernel runs on and threads start again.
    assert not any("exceeded" in n or "restarted" in n for n in notes), notes
    assert cell(graded_notebook(batch, "forkbomb"), "test_workers").outputs == []
    assert processes_under(batch["tmp"]) == []


def test_a_double_forking_daemon_ends_with_its_sandbox(batch):
    grade = batch["grades"]["daemon"]
    assert grade["score"] == 6 and any("leftover process(es) killed" in n for n in grade["notes"]), grade
    assert not [p for p in psutil.process_iter(["cmdline"])
                if submissions.SLEEP_MARKER in " ".join(p.info["cmdline"] or [])]


def test_a_disk_filler_stops_at_the_size_of_its_folder_and_says_so(batch):
    grade = batch["grades"]["filler"]
    assert f"cell 2 filled its folder or /tmp (each {DISK_LIMIT_MB} MiB)" in grade["notes"], grade
    assert "No space left on device" in json.dumps(graded_notebook(batch, "filler").cells[2])


def test_a_growing_file_stops_at_the_file_size_limit_and_says_so(batch):
    grade = batch["grades"]["bigfile"]
    assert f"cell 2 reached the file-size limit ({FILE_LIMIT_MB} MiB)" in grade["notes"], grade
    assert "File too large" in json.dumps(graded_notebook(batch, "bigfile").cells[2])


def grade_alone(workspace, released, squares, *options):
    """One submission graded on its own; returns (its grade, the command's result)."""
    nb = nbformat.read(os.path.join(released, "ps1.ipynb"), as_version=4)
    cell(nb, "squares").source = squares
    subs = tempfile.mkdtemp(dir=workspace)
    os.mkdir(os.path.join(subs, "alone"))
    nbformat.write(nb, os.path.join(subs, "alone", "ps1.ipynb"))
    out = os.path.join(subs, "out")
    grader_tmp = tempfile.mkdtemp(dir=workspace)
    result = run_command("autograde", subs, "--source", SOURCE, "--out", out, *options, tmpdir=grader_tmp)
    assert result.returncode == 0, result.stderr
    assert processes_under(grader_tmp) == [] and os.listdir(grader_tmp) == []
    with open(os.path.join(out, "grades.json")) as f:
        return json.load(f)["grades"][0], result


def test_the_cpu_time_limit_ends_the_kernel_and_the_report_says_so(workspace, released):
    grade, _ = grade_alone(workspace, released, "while True:\n    pass", "--sandbox", "on", "--cpu-limit", "4",
                           "--timeout", "60")
    assert "the kernel died in cell 2: it used up its CPU time (4 s per process); a fresh kernel ran the " \
           "remaining cells" in grade["notes"], grade["notes"]
    assert grade["score"] == 0  # the fresh kernel lacks `info`


def test_sandbox_off_warns_in_one_line_and_the_report_says_off(workspace, released):
    grade, result = grade_alone(workspace, released, submissions.CORRECT_SQUARES, "--sandbox", "off")
    warnings = [line for line in result.stderr.splitlines() if "WARNING" in line]
    assert len(warnings) == 1 and warnings[0].startswith(
        "gillab-grade: WARNING: --sandbox off: submissions run unconfined as "), result.stderr
    assert grade["sandbox"] == "off" and grade["score"] == 5  # squares right, workers left as released


# Writes a line into the kernel's terminal output: the one fd open on its log file.
LOG_WRITER = """import os, stat
for fd in range(3, 256):
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode) and os.readlink(f"/proc/self/fd/{fd}").endswith("kernel.log"):
            os.write(fd, b"gillab-grading-test: in the kernel's log\\n")
    except OSError:
        pass
""" + submissions.CORRECT_SQUARES


@pytest.mark.parametrize("mode", ["on", "off"])
def test_the_kernels_log_is_kept_only_when_the_instructor_asks(workspace, released, mode):
    logs = tempfile.mkdtemp(dir=workspace)
    grade, _ = grade_alone(workspace, released, LOG_WRITER, "--sandbox", mode, "--kernel-logs", logs)
    assert grade["score"] == 5, grade
    with open(os.path.join(logs, "alone", "ps1.log"), "rb") as log:
        assert b"gillab-grading-test: in the kernel's log" in log.read()
    # Without the option: nothing of it outside the private folder, which is gone (grade_alone checks).
    grade, _ = grade_alone(workspace, released, LOG_WRITER, "--sandbox", mode)
    assert grade["score"] == 5, grade


def test_feedback_pages_show_scores_and_never_render_student_html(workspace, batch):
    page = open(os.path.join(batch["out"], "feedback", "wrong", "ps1.html")).read()
    assert "Autograded score: <b>2.5 / 6</b>" in page and "partial credit 1.5" in page
    assert os.path.exists(os.path.join(batch["out"], "feedback", "missing", "ps1.html"))
    assert "<script>" not in open(os.path.join(batch["out"], "feedback", "vandal", "ps1.html")).read()


def test_feedback_escapes_markup_written_by_students(batch):
    page = open(os.path.join(batch["out"], "feedback", "mallory", "ps1.html")).read()
    assert "<script>alert" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page


# -- collect and check

def test_collect_takes_regular_files_from_homes_and_refuses_symlinks(workspace, released):
    homes = tempfile.mkdtemp(dir=workspace)
    for student in ("ann", "bob", "eve", "zed"):
        os.makedirs(os.path.join(homes, student, "course"))
    shutil.copy(os.path.join(released, "ps1.ipynb"), os.path.join(homes, "ann", "course", "ps1.ipynb"))
    shutil.copy(os.path.join(released, "ps1.ipynb"), os.path.join(homes, "bob", "course", "ps1.ipynb"))
    os.symlink(os.path.join(homes, "ann", "course", "ps1.ipynb"), os.path.join(homes, "eve", "course", "ps1.ipynb"))
    shutil.rmtree(os.path.join(homes, "zed", "course"))
    os.symlink(os.path.join(homes, "bob", "course"), os.path.join(homes, "zed", "course"))
    subs = os.path.join(homes, "..", os.path.basename(homes) + "-submitted")
    result = run_command("collect", homes, subs, "--source", SOURCE, "--path-in-home", "course", tmpdir=workspace)
    assert result.returncode == 0, result.stderr
    assert "collected 2 notebook(s); 0 missing; 2 refused" in result.stdout
    assert sorted(os.listdir(subs)) == ["ann", "bob", "eve", "zed"]  # a folder each: the gradebook lists them
    assert sorted(os.listdir(os.path.join(subs, "ann"))) == ["ps1.ipynb"] and os.listdir(os.path.join(subs, "eve")) == []
    assert "refused eve/ps1.ipynb" in result.stderr and "refused zed/ps1.ipynb" in result.stderr


def test_check_gives_the_instructor_full_marks_and_the_student_version_zero(workspace):
    grader_tmp = tempfile.mkdtemp(dir=workspace)
    result = run_command("check", SOURCE, "--timeout", "20", "--jobs", "2", tmpdir=grader_tmp)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "ps1.ipynb: instructor 6/6, student 0/6: ok"
    assert os.listdir(grader_tmp) == []


@pytest.mark.parametrize("size, quick", [((), "1"), (("--lecture-size", "full"), "0")])
def test_the_lectures_run_at_their_quick_size_unless_the_instructor_asks_for_full(workspace, size, quick):
    """Every kernel the grader starts gets GILLAB_QUICK (gillab.course.size), whatever the grader's
    own environment says: quick by default, so a full-size cell never meets --timeout unasked."""
    source = tempfile.mkdtemp(dir=workspace)
    nb = nbformat.read(os.path.join(SOURCE, "ps1.ipynb"), as_version=4)
    cell(nb, "test_workers").source = f"import os\nassert os.environ.get('GILLAB_QUICK') == {quick!r}"
    nbformat.write(nb, os.path.join(source, "ps1.ipynb"))
    grader_tmp = tempfile.mkdtemp(dir=workspace)
    result = run_command("check", source, "--allow-free-points", "--timeout", "20", "--jobs", "2", *size,
                         tmpdir=grader_tmp, GILLAB_QUICK="0" if quick == "1" else "1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip() == "ps1.ipynb: instructor 6/6, student 1/6: ok"


def test_check_fails_a_test_that_passes_without_a_solution(workspace):
    source = tempfile.mkdtemp(dir=workspace)
    nb = nbformat.read(os.path.join(SOURCE, "ps1.ipynb"), as_version=4)
    cell(nb, "test_workers").source = "assert info.cpu_count >= 1"
    nbformat.write(nb, os.path.join(source, "ps1.ipynb"))
    result = run_command("check", source, "--timeout", "20", "--jobs", "2", tmpdir=workspace)
    assert result.returncode == 1
    assert "student version: test 'test_workers' gives 1 points without a solution" in result.stdout


def test_a_kernel_that_cannot_start_fails_each_notebook_and_the_batch_goes_on(workspace, released):
    spec_dir = tempfile.mkdtemp(dir=workspace)
    os.makedirs(os.path.join(spec_dir, "kernels", "broken"))
    with open(os.path.join(spec_dir, "kernels", "broken", "kernel.json"), "w") as f:
        json.dump({"argv": ["/bin/false", "{connection_file}"], "display_name": "broken", "language": "python"}, f)
    subs = tempfile.mkdtemp(dir=workspace)
    for student in ("ann", "bob"):
        os.mkdir(os.path.join(subs, student))
        shutil.copy(os.path.join(released, "ps1.ipynb"), os.path.join(subs, student))
    out = os.path.join(subs, "out")
    env_path = os.environ.get("JUPYTER_PATH", "")
    os.environ["JUPYTER_PATH"] = spec_dir
    try:
        result = run_command("autograde", subs, "--source", SOURCE, "--out", out, "--kernel", "broken", "--jobs", "2",
                             tmpdir=workspace)
    finally:
        os.environ["JUPYTER_PATH"] = env_path
    assert result.returncode == 1, result.stderr
    with open(os.path.join(out, "grades.json")) as f:
        grades = json.load(f)["grades"]
    assert [(g["student"], g["status"], g["score"]) for g in grades] == [("ann", "failed", 0), ("bob", "failed", 0)]
    assert grades[0]["notes"][0].startswith("grading failed: KernelStartError: kernel 'broken' did not start")


def test_unknown_kernel_is_a_one_line_error(workspace):
    result = run_command("autograde", workspace, "--source", SOURCE, "--kernel", "nope", tmpdir=workspace)
    assert result.returncode == 1
    assert result.stderr.strip().startswith("gillab-grade: no kernel named 'nope'; installed:")
