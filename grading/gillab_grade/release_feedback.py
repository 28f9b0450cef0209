"""Feedback pages handed back: GRADED/feedback/<student>/<notebook>.html copied into each
student's home (HOMES/<student>/<path in home>/), like nbgrader's release_feedback.

The grader may run as root and a home belongs to its student, who could have put a symlink
where the folder or a page goes (to a system file, or a classmate's home): every step below the
home is opened without following symlinks, and the pages are given to the home's owner."""

import errno
import os
import stat
from dataclasses import dataclass, field

_NOFOLLOW = os.O_NOFOLLOW | os.O_CLOEXEC
_DIR = os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW


@dataclass
class FeedbackReport:
    returned: list = field(default_factory=list)   # (student, page)
    no_home: list = field(default_factory=list)    # students graded who have no home under HOMES
    refused: list = field(default_factory=list)    # (student, why)


def _open_folder(home_fd, path_in_home, owner):
    """A descriptor of HOME/path_in_home, made (owned by the home's owner) where missing;
    OSError(ELOOP or ENOTDIR) when a step is a symlink or not a folder."""
    fd, walked = os.dup(home_fd), ""
    for part in [p for p in path_in_home.split("/") if p not in ("", ".")]:
        walked = os.path.join(walked, part)
        try:
            try:
                os.mkdir(part, 0o755, dir_fd=fd)
                os.chown(part, *owner, dir_fd=fd, follow_symlinks=False)
            except FileExistsError:
                pass
            child = os.open(part, _DIR, dir_fd=fd)
        except OSError as error:
            error.filename = walked
            raise
        finally:
            os.close(fd)
        fd = child
    return fd


def _write_page(folder_fd, name, data, owner):
    # O_NONBLOCK: a FIFO in her folder fails at once instead of holding the grader.
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | _NOFOLLOW, 0o644, dir_fd=folder_fd)
    with os.fdopen(fd, "wb") as out:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:  # a hard link to someone else's file
            raise OSError(errno.EPERM, "not a file of her own (a hard link or a special file)")
        out.truncate(0)
        os.fchown(fd, *owner)
        out.write(data)


def _pages(graded_dir, student):
    folder = os.path.join(graded_dir, "feedback", student)
    return sorted(name for name in os.listdir(folder) if name.endswith(".html"))


def _release_one(graded_dir, home, student, path_in_home, report):
    home_fd = os.open(home, _DIR)
    try:
        info = os.fstat(home_fd)
        owner = (info.st_uid, info.st_gid)
        folder_fd = _open_folder(home_fd, path_in_home, owner)
        try:
            for name in _pages(graded_dir, student):
                with open(os.path.join(graded_dir, "feedback", student, name), "rb") as page:
                    data = page.read()
                try:
                    _write_page(folder_fd, name, data, owner)
                except OSError as error:
                    error.filename = os.path.join(path_in_home, name)
                    raise
                report.returned.append((student, name))
        finally:
            os.close(folder_fd)
    finally:
        os.close(home_fd)


def release_feedback(graded_dir, homes_dir, path_in_home="feedback"):
    """Copies every student's feedback pages of graded_dir (autograde's --out) into her home."""
    report = FeedbackReport()
    for student in sorted(os.listdir(os.path.join(graded_dir, "feedback"))):
        home = os.path.join(homes_dir, student)
        if os.path.islink(home) or not os.path.isdir(home):
            report.no_home.append(student)
            continue
        try:
            _release_one(graded_dir, home, student, path_in_home, report)
        except OSError as error:
            why = ("a symlink where a folder or page goes" if error.errno in (errno.ELOOP, errno.ENOTDIR)
                   else error.strerror)
            report.refused.append((student, f"{error.filename}: {why}"))
    return report
