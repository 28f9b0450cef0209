"""The interpreters the --python tests run against, and what they leave running: one definition
for every test file (the project's 3.13 builds, pyenv's, the kernel's children)."""

import glob
import os

import psutil
import pytest

BUILDS = os.path.join(os.environ.get("GILLAB_CACHE", "/var/cache/gillab"), "cpython-3.13")
FREE_THREADED = os.path.join(BUILDS, "free-threaded/bin/python3.13t")
DEFAULT_313 = os.path.join(BUILDS, "default/bin/python3.13")
PYENV_39 = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.9*/bin/python3.9")))
PYENV_27 = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/2.7*/bin/python2.7")))
PYENV_GIL_BUILDS = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[0-3]*/bin/python3.1[0-3]")))
# A GIL build other than the kernel's: the project's 3.13 first, else pyenv's newest.
GIL_CHILD = DEFAULT_313 if os.path.exists(DEFAULT_313) else (PYENV_GIL_BUILDS[-1] if PYENV_GIL_BUILDS else None)

needs_free_threaded = pytest.mark.skipif(not os.path.exists(FREE_THREADED),
                                         reason="free-threaded CPython not built (make free-threaded-python)")
needs_default_build = pytest.mark.skipif(not os.path.exists(DEFAULT_313),
                                         reason="the project's default CPython 3.13 not built (make free-threaded-python)")
# Debian unstable's own 3.14 and 3.15 in the project's root file system (tools/build-sid-pythons).
SID = os.path.join(os.environ.get("GILLAB_CACHE", "/var/cache/gillab"), "debian-sid")
SID_PYTHONS = [os.path.join(SID, "root/usr/bin", name) for name in ("python3.14", "python3.15")]


def _sid_missing():
    if all(os.path.exists(python) for python in SID_PYTHONS):
        return None
    if os.path.exists(os.path.join(SID, "root.new")):
        return "Debian unstable's python3.14 / python3.15 are still being set up (make sid-pythons, in %s)" % SID
    return "Debian unstable's python3.14 / python3.15 not set up (make sid-pythons)"


needs_sid_pythons = pytest.mark.skipif(_sid_missing() is not None, reason=_sid_missing() or "")
needs_gil_child = pytest.mark.skipif(GIL_CHILD is None, reason="no second CPython with a GIL on this machine")


def live_children(kernel):
    """The kernel's descendants that still run (zombies awaiting their reaper do not count)."""
    return {p.pid for p in psutil.Process(kernel.pid).children(recursive=True) if p.status() != psutil.STATUS_ZOMBIE}
