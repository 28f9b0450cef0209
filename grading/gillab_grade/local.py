"""Grading on this machine: `jobs` notebooks at a time, each in its own kernel (grade_one.py).

The executor `gillab-grade autograde` and `check` use unless --scheduler names a Dask cluster
(cluster.py, the other executor, with the same three members: who, probe, grade).
"""

import copy
import os
import pwd
import threading
from concurrent.futures import ThreadPoolExecutor

from . import sandbox
from .grade_one import grade_one


class Local:
    def __init__(self, jobs=1):
        self.jobs = max(1, jobs)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    @property
    def who(self):
        """The user submissions run as when they run unconfined."""
        try:
            return pwd.getpwuid(os.geteuid()).pw_name
        except KeyError:
            return f"uid {os.geteuid()}"

    def probe(self, limits):
        """None when this machine can make a sandbox; else why not."""
        return sandbox.probe(limits)

    def grade(self, work, submissions_dir, source_dir, instructors, options, graded):
        """Grades each (student, notebook) of work, calling graded(grade, executed) as each one ends;
        returns the grades in work's order. An interrupt stops the kernels that are running."""
        stop_event = threading.Event()

        def job(item):
            student, rel = item
            grade, executed = grade_one(student, rel, os.path.join(submissions_dir, student),
                                        copy.deepcopy(instructors[rel]), source_dir, options, stop_event)
            graded(grade, executed)
            return grade

        with ThreadPoolExecutor(max_workers=self.jobs) as pool:
            futures = [pool.submit(job, item) for item in work]
            try:
                return [f.result() for f in futures]
            except BaseException:
                stop_event.set()
                for f in futures:
                    f.cancel()
                raise
