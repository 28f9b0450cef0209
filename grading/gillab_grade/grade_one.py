"""One unit of grading: a student's notebook graded in its own private folder and kernel.

For SUBMISSIONS/<student>/<notebook>: a private temp folder (0700) holds a working folder with a
copy of the student's files (regular files only; symlinks are not followed) and the instructor's
non-notebook files, and the kernel's terminal output (kept, its last MiB, only with
--kernel-logs). The kernel runs on that copy, in a sandbox or unconfined (sandbox.py says what
each means), with a token in its environment by which every process it starts is killed
afterwards. The folder is removed whatever happens. The submission's protected cells are
restored from the instructor version before it runs; scores follow nbgrader's rules.

Both executors call this module and nothing above it: local.py on this machine's threads,
cluster.py on a Dask cluster's workers (which receive Options, so it holds what one grading
needs and nothing about where the batch runs).
"""

import os
import shutil
import stat
import tempfile
import uuid
from dataclasses import dataclass, field

import nbformat

from . import gradebook, processes, release, restore, sandbox, scoring
from . import nbformat_grader as fmt
from .kernel_run import NotebookRunner
from .limits import Limits

MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_LOG_BYTES = 1024 * 1024  # the tail of a kernel's terminal output kept with --kernel-logs


@dataclass
class Options:
    kernel_name: str = "gillab"
    limits: Limits = field(default_factory=Limits)
    sandbox: str = "bubblewrap"  # or "off" (see sandbox.py)
    kernel_logs: str = ""  # a folder for each kernel's terminal output; "": kept nowhere
    lecture_size: str = "quick"  # or "full": the lectures' measurement size (gillab.course.size), GILLAB_QUICK


def regular_files(source, skip_notebooks=False):
    """(path, path relative to source) of the regular files under source that a grading copies:
    no symlinks, devices, hidden folders or oversized files."""
    for root, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if not d.startswith(".") and not os.path.islink(os.path.join(root, d))]
        for name in files:
            path = os.path.join(root, name)
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
                continue
            if skip_notebooks and name.endswith(".ipynb"):
                continue
            yield path, os.path.relpath(path, source)


def _copy_regular_files(source, target, skip_notebooks=False):
    for path, rel in regular_files(source, skip_notebooks):
        dest = os.path.join(target, rel)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(path, dest)


def remove_tree(path):
    """rmtree that also gets through folders a submission made read-only."""
    def make_writable_and_retry(func, failed, _):
        parent = os.path.dirname(failed)
        try:
            os.chmod(parent, 0o700)
            if os.path.isdir(failed) and not os.path.islink(failed):
                os.chmod(failed, 0o700)
            func(failed)
        except FileNotFoundError:
            pass
    shutil.rmtree(path, onerror=make_writable_and_retry)


def _unsubmitted_scores(instructor):
    cells = scoring.score_notebook(release.student_version(instructor, "", keep_hidden_tests=True))
    for cell in cells:
        cell.score, cell.reason = 0.0, "not submitted"
    return cells


def _read_submission(path):
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode):
        raise ValueError("the submission is not a regular file")
    if info.st_size > MAX_FILE_BYTES:
        raise ValueError(f"the submission is larger than {MAX_FILE_BYTES} bytes")
    return nbformat.read(path, as_version=4)


def gradable(student, notebook, student_dir, instructor):
    """(NotebookGrade, None) when student_dir/notebook cannot run (missing, unreadable); else
    (None, (the notebook with its protected cells restored, the notes that restoring made))."""
    submission_path = os.path.join(student_dir, notebook)
    if not os.path.lexists(submission_path):
        return gradebook.NotebookGrade(student, notebook, _unsubmitted_scores(instructor), "missing",
                                       [f"no submission: nothing at {student}/{notebook}"]), None
    try:
        return None, restore.gradable_version(_read_submission(submission_path), instructor, notebook)
    except Exception as error:  # not JSON, not a notebook, not a file: the student's problem, reported
        return gradebook.NotebookGrade(student, notebook, _unsubmitted_scores(instructor), "unreadable",
                                       [f"the notebook could not be read: {error}"]), None


def run_gradable(student, notebook, nb, notes, student_dir, source_dir, options, stop_event=None):
    """Runs a gradable notebook (see gradable) in its kernel on a copy of student_dir and of
    source_dir's other files; returns (NotebookGrade, executed notebook)."""
    private = tempfile.mkdtemp(prefix="gillab-grade-")
    try:
        environ = dict(os.environ, MPLBACKEND="agg", GILLAB_QUICK="1" if options.lecture_size == "quick" else "0",
                       **{processes.TOKEN_VARIABLE: uuid.uuid4().hex})
        host = sandbox.host_for(options.sandbox)(private, os.path.dirname(notebook), environ, options.limits,
                                                 keep_log=bool(options.kernel_logs))
        _copy_regular_files(student_dir, host.work)
        _copy_regular_files(source_dir, host.work, skip_notebooks=True)
        os.makedirs(os.path.join(host.work, os.path.dirname(notebook)), exist_ok=True)
        runner = NotebookRunner(options.kernel_name, host, options.limits, stop_event)
        report = runner.run(nb, guarded=fmt.is_test)
        notes = notes + report.notes
        if report.processes_killed:
            notes.append(f"{report.processes_killed} leftover process(es) killed after the run")
        grade = gradebook.NotebookGrade(student, notebook, scoring.score_notebook(nb), "graded", notes,
                                        report.seconds, host.mode)
        return grade, nb
    finally:
        if options.kernel_logs:
            _keep_log(os.path.join(private, sandbox.KERNEL_LOG), options.kernel_logs, student, notebook)
        remove_tree(private)


def failed_grade(student, notebook, instructor, why, sandbox_mode):
    """The grader's fault, not the student's: every cell flagged "not graded", the batch goes on."""
    cells = _unsubmitted_scores(instructor)
    for cell in cells:
        cell.reason = "not graded: grading failed"
    return gradebook.NotebookGrade(student, notebook, cells, "failed", [f"grading failed: {why}"],
                                   sandbox=sandbox_mode)


def grade_one(student, notebook, student_dir, instructor, source_dir, options, stop_event=None):
    """Grades student_dir/notebook; returns (NotebookGrade, executed notebook or None);
    a failure of grading itself (e.g. KernelStartError) is a "failed" grade."""
    try:
        grade, restored = gradable(student, notebook, student_dir, instructor)
        if grade is not None:
            return grade, None
        return run_gradable(student, notebook, *restored, student_dir, source_dir, options, stop_event)
    except Exception as error:
        return failed_grade(student, notebook, instructor, f"{type(error).__name__}: {error}", options.sandbox), None


def _keep_log(log, folder, student, notebook):
    """The tail of the kernel's terminal output, as folder/<student>/<notebook>.log."""
    target = os.path.join(folder, student, os.path.splitext(notebook)[0] + ".log")
    os.makedirs(os.path.dirname(target), exist_ok=True)
    try:
        with open(log, "rb") as source:
            source.seek(max(0, os.fstat(source.fileno()).st_size - MAX_LOG_BYTES))
            tail = source.read(MAX_LOG_BYTES)
    except OSError:
        tail = b""
    with open(target, "wb") as out:
        out.write(tail)
