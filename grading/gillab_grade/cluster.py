"""Grading on a Dask cluster: `gillab-grade autograde --scheduler ADDRESS`.

This process (the client) decides and writes; the workers only run notebooks. A submission that
cannot run (missing, unreadable) is graded here, as locally. Every other (student, notebook) goes
to a worker as one task that carries the restored notebook, the student's files and the
instructor's other files, so no file system is shared; the worker runs it in its own sandbox with
this run's limits (grade_one.run_gradable) and sends back the grade and the executed notebook.
Only the client writes results, once per (student, notebook): when Dask runs a task again after
losing its worker, nothing is counted twice. A task whose workers kept dying (Dask gives up after
its allowed failures) gets a "failed" grade, and only that notebook does.

One Client a run: `Cluster(address)` connects once, and the sandbox probe and the grading both go
through it. The tasks carry Options (what one grading needs), never the scheduler's address.
"""

import copy
import os
import tempfile
import uuid

import nbformat
from distributed import Client, KilledWorker, as_completed

from . import sandbox
from .grade_one import failed_grade, gradable, regular_files, remove_tree, run_gradable

CONNECT_TIMEOUT_S = 30
WORKERS_WAIT_S = 60  # workers started beside the run may join the scheduler seconds after it answers


def pack(folder, skip_notebooks=False):
    """{relative path: bytes} of the files a grading copies from folder (grade_one.regular_files)."""
    files = {}
    for path, rel in regular_files(folder, skip_notebooks):
        with open(path, "rb") as f:
            files[rel] = f.read()
    return files


def unpack(files, folder):
    for rel, data in files.items():
        path = os.path.normpath(os.path.join(folder, rel))
        if not path.startswith(folder + os.sep):
            raise ValueError(f"a packed file's path leaves its folder: {rel!r}")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)


def grade_shipped(student, notebook, nb_text, notes, student_files, source_files, options):
    """On a worker: one gradable notebook run as a local run would; (grade, executed notebook as text)."""
    folder = tempfile.mkdtemp(prefix="gillab-grade-task-")
    try:
        student_dir, source_dir = os.path.join(folder, "student"), os.path.join(folder, "source")
        os.mkdir(student_dir)
        os.mkdir(source_dir)
        unpack(student_files, student_dir)
        unpack(source_files, source_dir)
        grade, executed = run_gradable(student, notebook, nbformat.reads(nb_text, as_version=4), notes,
                                       student_dir, source_dir, options)
        return grade, nbformat.writes(executed)
    finally:
        remove_tree(folder)


def _submit(client, batch, student, rel, restored, student_dir, source_files, options):
    nb, notes = restored
    return client.submit(grade_shipped, student, rel, nbformat.writes(nb), notes, pack(student_dir), source_files,
                         options, key=f"gillab-grade-{batch}-{student}/{rel}", retries=0)


def _result(future, student, rel, instructor, options):
    """(grade, executed notebook or None) of a finished task; a lost or failed one is a "failed" grade."""
    try:
        grade, executed = future.result()
        return grade, nbformat.reads(executed, as_version=4)
    except KilledWorker:
        why = "every worker that ran it was lost (Dask gave up on it: KilledWorker)"
    except Exception as error:
        why = f"{type(error).__name__}: {error}"
    return failed_grade(student, rel, instructor, why, options.sandbox), None


class Cluster:
    """The executor for --scheduler ADDRESS: one connection to the scheduler for the whole run."""

    who = "the Dask workers' user"  # whom submissions run as when they run unconfined

    def __init__(self, address, workers_wait_s=WORKERS_WAIT_S):
        """Connects, then waits up to workers_wait_s for a first worker: an instructor may start
        the workers a moment before grading (pods on Kubernetes may take minutes)."""
        self.address = address
        try:
            self.client = Client(address, timeout=CONNECT_TIMEOUT_S, set_as_default=False)
        except OSError as error:
            raise SystemExit(f"gillab-grade: no Dask scheduler answered at {address}: {error}") from None
        try:
            self.client.wait_for_workers(1, timeout=workers_wait_s)
        except TimeoutError:
            self.client.close()
            raise SystemExit(f"gillab-grade: no Dask worker joined the scheduler at {address} in {workers_wait_s:g} s "
                             "(--wait-for-workers SECONDS waits longer)") from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.client.close()
        return False

    def probe(self, limits):
        """None when every worker of the cluster can make a sandbox; else why one cannot."""
        answers = self.client.run(sandbox.probe, limits)
        if not answers:
            return f"the scheduler at {self.address} has no workers"
        for worker, why in sorted(answers.items()):
            if why is not None:
                return f"worker {worker}: {why}"
        return None

    def grade(self, work, submissions_dir, source_dir, instructors, options, graded):
        """Grades each (student, notebook) of work on the cluster's workers, calling graded(grade,
        executed) here as each one ends; returns the grades in work's order."""
        client, grades, batch = self.client, {}, uuid.uuid4().hex[:12]
        source_files = pack(source_dir, skip_notebooks=True)
        items = {}  # future's key: (student, notebook)
        for student, rel in work:
            student_dir = os.path.join(submissions_dir, student)
            grade, restored = gradable(student, rel, student_dir, copy.deepcopy(instructors[rel]))
            if grade is not None:
                grades[(student, rel)] = grade
                graded(grade, None)
                continue
            future = _submit(client, batch, student, rel, restored, student_dir, source_files, options)
            items[future.key] = (student, rel), future
        try:
            for future in as_completed([future for _, future in items.values()], loop=client.loop):
                (student, rel), _ = items[future.key]
                if (student, rel) in grades:
                    continue  # one result per (student, notebook)
                grade, executed = _result(future, student, rel, instructors[rel], options)
                grades[(student, rel)] = grade
                graded(grade, executed)
        except BaseException:
            client.cancel([future for _, future in items.values()])
            raise
        return [grades[item] for item in work]
