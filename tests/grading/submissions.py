"""Fabricated submissions of the fixture problem set: what students hand in,
from the right answer to the hostile ones. Each is built from the released
notebook by replacing solution cells' text (or worse)."""

import copy
import os
import random

import nbformat

CORRECT_SQUARES = "def squares(n):\n    return [i * i for i in range(n)]"
CORRECT_WORKERS = "def usable_workers(info):\n    return info.cpu_count"
# The argument of every `sleep` the spawner starts, unique to this test run, to find leftovers.
SLEEP_MARKER = f"987.{random.randrange(10**6):06d}"


def _cell(nb, grade_id):
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def _answer(released, squares=CORRECT_SQUARES, workers=CORRECT_WORKERS, explain=None):
    nb = copy.deepcopy(released)
    _cell(nb, "squares").source = squares
    _cell(nb, "workers").source = workers
    if explain is not None:
        _cell(nb, "explain").source = explain
    return nb


def _tampered(released):
    nb = _answer(released, squares="def squares(n):\n    return []")
    test = _cell(nb, "test_squares")
    test.source = "pass"
    test.metadata.nbgrader["points"] = 100
    nb.cells.remove(_cell(nb, "test_partial"))
    forged = nbformat.v4.new_code_cell("pass", metadata=copy.deepcopy(_cell(nb, "test_workers").metadata))
    nb.cells.insert(2, forged)
    return nb


SPAWNER = f"""import os, subprocess
for _ in range(20):
    subprocess.Popen(["/bin/sleep", "{SLEEP_MARKER}"], start_new_session=True)
# No token in its environment, its own session: only the subreaper finds it.
subprocess.Popen(["/bin/sleep", "{SLEEP_MARKER}"], env={{}}, start_new_session=True)
child = os.fork()
if child == 0:
    os.setsid()
    if os.fork() == 0:
        os.execve("/bin/sleep", ["/bin/sleep", "{SLEEP_MARKER}"], {{}})
    os._exit(0)
os.waitpid(child, 0)
""" + CORRECT_SQUARES

CORRECT_EXPLAIN = "Only one thread runs Python bytecode at a time."

# Looks where the submissions folder would be, for another student's answer.
SIBLING_READER = """import glob
found = []
for path in glob.glob("../*/ps1.ipynb") + glob.glob("../../*/ps1.ipynb") + glob.glob("../../../*/ps1.ipynb"):
    if "Only one thread runs Python" + " bytecode" in open(path).read():  # not in this very source
        found.append(path)
for path in ("../correct/ps1.ipynb", "../../correct/ps1.ipynb"):
    try:
        open(path, "w").write("overwritten")
        found.append("wrote " + path)
    except OSError:
        pass
print("siblings found:", found)
print("data:", open("data.txt").read().strip())
""" + CORRECT_SQUARES

VANDAL = """import os, shutil
for name in os.listdir("."):
    (shutil.rmtree if os.path.isdir(name) else os.remove)(name)
os.makedirs("locked/inner")
open("locked/inner/file", "w").write("x")
os.chmod("locked/inner", 0)
os.chmod("locked", 0o500)
""" + CORRECT_SQUARES


# A fork bomb: every process forks until the process limit refuses.
FORK_BOMB = "import os\nwhile True:\n    os.fork()"

# A daemon that leaves its session, ignores the signals a logout sends and scrubs its environment.
DAEMON = f"""import os, signal, sys
child = os.fork()
if child == 0:
    os.setsid()
    if os.fork() == 0:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        os.execve(sys.executable, [sys.executable, "-c", "import time\\nwhile True: time.sleep(1)  # {SLEEP_MARKER}"], {{}})
    os._exit(0)
os.waitpid(child, 0)
""" + CORRECT_SQUARES

# Fills the disk in files under the file-size limit, until the folder is full.
DISK_FILLER = """chunk = b"x" * 2**20
for n in range(100_000):
    with open(f"fill-{n}", "wb") as out:
        for _ in range(4):
            out.write(chunk)
"""

# One file, growing until the file-size limit stops it.
BIG_FILE = """with open("/tmp/big", "wb") as out:
    while True:
        out.write(b"x" * 2**20)
        out.flush()
"""


def peeker(targets):
    """Reads what it should never see, by absolute path: a classmate's notebook,
    the instructor's solutions, the grader's folders, the homes."""
    return f"""import glob, os
found = []
for pattern in {targets!r}:
    for path in glob.glob(pattern) or [pattern]:
        try:
            found.append((path, sorted(os.listdir(path)) if os.path.isdir(path) else len(open(path).read())))
        except OSError:
            pass
print("peeked:", found)
""" + CORRECT_SQUARES


def caller(port, unix_name):
    """Connects to a TCP listener on the grader's loopback and to an abstract unix socket."""
    return f"""import socket
reached = []
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
    reached.append("tcp")
except OSError as error:
    print("tcp:", type(error).__name__)
try:
    unix = socket.socket(socket.AF_UNIX)
    unix.settimeout(2)
    unix.connect("\\0{unix_name}")
    reached.append("unix")
except OSError as error:
    print("unix:", type(error).__name__)
print("reached:", reached)
""" + CORRECT_SQUARES


def scribbler(targets):
    """Writes outside its folder: into the submissions and the grader's folders,
    the system, and the places any user may write (/tmp, /var/tmp, /dev/shm)."""
    return f"""escaped = []
for path in {targets!r}:
    try:
        with open(path, "w") as out:
            out.write("escaped")
        escaped.append(path)
    except OSError:
        pass
print("written:", escaped)
""" + CORRECT_SQUARES


def build(released, hostile=None):
    """{student: notebook, raw text (not a notebook), or None (nothing handed in)}.
    hostile: {"peek": [paths], "port": int, "unix": name, "scribble": [paths]}
    adds the submissions that try to get out of the sandbox."""
    escapes = {} if hostile is None else {
        "peeker": _answer(released, squares=peeker(hostile["peek"])),
        "caller": _answer(released, squares=caller(hostile["port"], hostile["unix"])),
        "scribbler": _answer(released, squares=scribbler(hostile["scribble"])),
        "forkbomb": _answer(released, squares=FORK_BOMB),
        "daemon": _answer(released, squares=DAEMON),
        "filler": _answer(released, squares=DISK_FILLER),
        "bigfile": _answer(released, squares=BIG_FILE),
    }
    return escapes | {
        "correct": _answer(released, explain=CORRECT_EXPLAIN),
        "wrong": _answer(released, squares="def squares(n):\n    return [i * i for i in range(min(n, 3))]"),
        "missing": None,
        "garbled": "{ this is not a notebook",
        "unanswered": copy.deepcopy(released),
        "tampered": _tampered(released),
        "silencer": _answer(released, squares="get_ipython().showtraceback = lambda *a, **k: None\n"
                                              "def squares(n):\n    return []"),
        "loop": _answer(released, squares="while True:\n    pass"),
        "deaf": _answer(released, squares="import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                                          "while True:\n    pass"),
        "exiter": _answer(released, squares="import os\nos._exit(3)"),
        "sysexit": _answer(released, squares="import sys\nsys.exit(1)"),
        "stderr": _answer(released, squares="import sys\ndef squares(n):\n    sys.stderr.write('debug\\n')\n"
                                            "    return [i * i for i in range(n)]"),
        "huge": _answer(released, squares="for _ in range(100):\n    print('x' * 100_000)\n" + CORRECT_SQUARES),
        "sibling": _answer(released, squares=SIBLING_READER),
        "spawner": _answer(released, squares=SPAWNER),
        "vandal": _answer(released, squares=VANDAL),
        "hog": _answer(released, squares="hog = bytearray(3 * 2**30)\n" + CORRECT_SQUARES),
        "mallory": _answer(released, squares="from IPython.display import HTML, display\n"
                                             "display(HTML('<script>alert(1)</script>'))\nprint('<b>bold</b>')\n"
                                             + CORRECT_SQUARES),
    }


def write(built, folder, name="ps1.ipynb"):
    """build()'s class as folder/<student>/<name>: a notebook, raw text, or nothing handed in."""
    for student, nb in built.items():
        os.makedirs(os.path.join(folder, student))
        if isinstance(nb, str):
            with open(os.path.join(folder, student, name), "w") as f:
                f.write(nb)
        elif nb is not None:
            nbformat.write(nb, os.path.join(folder, student, name))


# (autograded score, manual points pending, status) per student; 6 autograded points in all.
# Only "correct" wrote the answer to the hand-graded question; an untouched one scores 0.
EXPECTED = {
    "correct": (6, 2, "graded"),
    "wrong": (2.5, 0, "graded"),     # test_squares fails, test_workers passes, partial credit 1.5
    "missing": (0, 0, "missing"),
    "garbled": (0, 0, "unreadable"),
    "unanswered": (0, 0, "graded"),
    "tampered": (1, 0, "graded"),    # tests restored: only test_workers passes
    "silencer": (1, 0, "graded"),    # the kernel still reports its errors: only test_workers passes
    "loop": (1, 0, "graded"),        # interrupted; squares undefined, workers fine
    "deaf": (0, 0, "graded"),        # ignores the interrupt: replaced by a fresh kernel without `info`
    "exiter": (0, 0, "graded"),      # kernel died: the fresh kernel lacks `info`
    "sysexit": (1, 0, "graded"),
    "stderr": (1, 0, "graded"),      # every test that calls squares wrote to stderr
    "huge": (6, 0, "graded"),
    "sibling": (6, 0, "graded"),
    "spawner": (6, 0, "graded"),
    "vandal": (6, 0, "graded"),
    "hog": (1, 0, "graded"),         # MemoryError under --memory-limit: squares undefined
    "mallory": (6, 0, "graded"),     # HTML and script output: escaped in the feedback page
}

# The submissions that try to get out of the sandbox (build's `hostile`).
EXPECTED_HOSTILE = {
    "peeker": (6, 0, "graded"),      # nothing of the host in reach
    "caller": (6, 0, "graded"),      # no network
    "scribbler": (6, 0, "graded"),   # writes only inside its own sandbox
    "daemon": (6, 0, "graded"),      # ends with its sandbox
    "forkbomb": (1, 0, "graded"),    # BlockingIOError: squares undefined; its copies killed, workers fine
    "filler": (1, 0, "graded"),      # OSError ENOSPC at the folder's size
    "bigfile": (1, 0, "graded"),     # OSError EFBIG at the file-size limit
}
