import subprocess
import sys
import time

from gillab.runners import process_tree

# A child that starts a grandchild, prints its pid and waits.
PARENT = ("import subprocess, sys, time\n"
          "g = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
          "print(g.pid, flush=True); time.sleep(60)\n")


def start_tree():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    grandchild = int(parent.stdout.readline())
    return parent, grandchild


def test_live_descendants_see_grandchildren_and_started_since_leaves_earlier_ones_out():
    before = process_tree.live_descendants()
    parent, grandchild = start_tree()
    try:
        assert {parent.pid, grandchild} <= set(process_tree.live_descendants())
        assert sorted(process_tree.started_since(before)) == sorted([parent.pid, grandchild])
        assert process_tree.started_since(before + [parent.pid, grandchild]) == []
    finally:
        process_tree.kill_trees([parent.pid])
        parent.wait(10)


def test_kill_trees_kills_the_root_and_what_it_started():
    parent, grandchild = start_tree()
    process_tree.kill_trees([parent.pid])
    assert parent.wait(10) == -9
    deadline = time.monotonic() + 10
    while process_tree._state(grandchild) not in "ZX" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process_tree._state(grandchild) in "ZX"


def test_stop_ends_processes_that_ignore_sigterm():
    stubborn = subprocess.Popen([sys.executable, "-c", "import signal, time\n"
                                 "signal.signal(signal.SIGTERM, signal.SIG_IGN); print(1, flush=True); time.sleep(60)"],
                                stdout=subprocess.PIPE)
    stubborn.stdout.readline()
    started = time.monotonic()
    process_tree.stop([stubborn.pid], grace_s=0.2)
    assert stubborn.wait(10) == -9
    assert time.monotonic() - started < 5


def test_freeze_then_kill_kills_exactly_the_processes_named():
    parent, grandchild = start_tree()
    try:
        process_tree.freeze_then_kill([parent.pid])
        assert parent.wait(10) == -9
        assert process_tree._state(grandchild) not in "TZX"  # not in the list: neither frozen nor killed
    finally:
        process_tree.kill_trees([grandchild])


def test_the_walk_imports_without_the_kernel_or_ipython(package_dir):
    # The grader (gillab_grade.processes) imports it in a plain python3.
    probe = subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                            "import gillab.runners.process_tree; "
                            "print(sorted(m for m in ('_gillab', 'IPython') if m in sys.modules))", package_dir],
                           capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == "[]"
