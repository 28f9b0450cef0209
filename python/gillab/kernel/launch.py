"""The gillab kernel in this interpreter: `python3 -m gillab.kernel -f CONNECTION_FILE`
(gillab/kernel/__main__.py calls main()).

The kernelspec starts it that way, so the student's code runs in Debian's own
/usr/bin/python3 at its full speed; the kernel itself is the native `_gillab`
module, which serves the connection file until the kernel is shut down.
"""

# Imported here, on the main thread before the kernel starts: without it the kernel crashed at
# shutdown after a debugger session (tests/kernel/test_debugger*.py).
import asyncio  # noqa: F401
import argparse
import atexit
import os
import sys

import _gillab

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _parser():
    parser = argparse.ArgumentParser(
        prog="gillab", description="gillab: a Jupyter kernel that measures the GIL (started by Jupyter, see the kernelspec).")
    parser.add_argument("-f", "--connection-file", help="the connection file Jupyter wrote for this kernel")
    parser.add_argument("--version", action="version", version=f"gillab {_gillab.version}")
    return parser


def _forget_own_pythonpath():
    """The kernelspec puts this package on PYTHONPATH; the student's own
    subprocesses should see the environment they would see anywhere else
    (sys.path, which multiprocessing hands to its children, keeps it)."""
    entries = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and os.path.abspath(p) != _PACKAGE_DIR]
    if entries:
        os.environ["PYTHONPATH"] = os.pathsep.join(entries)
    else:
        os.environ.pop("PYTHONPATH", None)


def finish():
    """The kernel is ending (called from native code, once): what Python
    would do on its way out, then the last output is flushed."""
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass  # a student may have closed or replaced it


def main(argv=None):
    args = _parser().parse_args(argv)
    if not args.connection_file:
        _parser().error("the connection file is missing: gillab -f CONNECTION_FILE")
    _forget_own_pythonpath()
    # IPython's application parses sys.argv; the kernel's -f is not its option.
    sys.argv = sys.argv[:1]
    _gillab.launch(args.connection_file)
