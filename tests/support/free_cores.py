"""Whether the machine has cores to spare right now: tests of parallel speed-ups skip, or
retry, when a neighbour holds a core, since then plain processes cannot run in parallel either."""

import subprocess
import sys
import time

# Burns 0.3 s of this process's CPU time, however long that takes in wall time.
BURN = "import time\nstart = time.process_time()\nwhile time.process_time() - start < 0.3:\n    pass\n"


def spin_seconds(copies):
    """Wall time of `copies` fresh interpreters each burning 0.3 s of CPU at once: about 0.3 s
    while that many cores are idle, more when they are shared."""
    started = time.monotonic()
    children = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(copies)]
    for child in children:
        child.wait()
    return time.monotonic() - started
