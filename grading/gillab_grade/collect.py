"""Submissions copied from students' home folders (one folder per student).

Only regular files inside the student's own home are taken: a notebook that is
a symlink, or reached through a symlinked folder (pointing at someone else's
work or at a system file the grader may read), is refused and reported.
"""

import os
import shutil
import stat
from dataclasses import dataclass, field

from .grade_one import MAX_FILE_BYTES
from .release import find_notebooks


@dataclass
class CollectReport:
    collected: list = field(default_factory=list)   # (student, notebook)
    missing: list = field(default_factory=list)
    refused: list = field(default_factory=list)     # (student, notebook, why)


def _inside(path, folder):
    return os.path.realpath(path).startswith(os.path.realpath(folder) + os.sep)


def collect(homes_dir, submissions_dir, source_dir, path_in_home=""):
    report = CollectReport()
    notebooks = find_notebooks(source_dir)
    for student in sorted(os.listdir(homes_dir)):
        home = os.path.join(homes_dir, student)
        if student.startswith(".") or os.path.islink(home) or not os.path.isdir(home):
            continue
        # Her folder even when nothing is taken: the gradebook then lists her, with a zero and why.
        os.makedirs(os.path.join(submissions_dir, student), exist_ok=True)
        for rel in notebooks:
            candidate = os.path.join(home, path_in_home, rel)
            if not os.path.lexists(candidate):
                report.missing.append((student, rel))
                continue
            info = os.lstat(candidate)
            if not stat.S_ISREG(info.st_mode) or not _inside(candidate, home):
                report.refused.append((student, rel, "not a regular file inside the student's home"))
                continue
            if info.st_size > MAX_FILE_BYTES:
                report.refused.append((student, rel, f"larger than {MAX_FILE_BYTES} bytes"))
                continue
            target = os.path.join(submissions_dir, student, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(candidate, target)
            report.collected.append((student, rel))
    return report
