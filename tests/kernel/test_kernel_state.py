"""What a magic's jobs change is put back after the magic; what a plain cell
changes stays (over the protocol). The switch interval, the child processes a
job leaves, and the interpreter state of gillab/magics/kernel_state.py; never a line
on stderr."""

import pytest

# One job per magic, run once: the job's code is what changes the kernel.
GILBENCH = "%%gilbench --modes {mode} --workers 1 --jobs 1 --repeats 1 --warmup 0\n"


def as_coroutine(body):
    return "async def ajob(i):\n" + "".join(f"    {line}\n" for line in body.splitlines())


JOB_MAGICS = {
    "gilbench sequential": lambda body: GILBENCH.format(mode="sequential") + body,
    "gilbench threads": lambda body: GILBENCH.format(mode="threads") + body,
    "gilbench asyncio": lambda body: GILBENCH.format(mode="asyncio") + as_coroutine(body),
    "heartbeat": lambda body: "%%heartbeat\n" + body,
}


def clean(result):
    assert result.status == "ok", result.reply["content"]
    assert result.stream("stderr") == "", result.stream("stderr")
    return result


def text_of(result):
    return "".join(m["content"]["data"].get("text/plain", "") for m in result.of_type("execute_result")) + \
        result.stream("stdout")


@pytest.mark.parametrize("magic", JOB_MAGICS)
def test_a_jobs_switch_interval_is_undone_and_the_students_dial_stays(kernel, magic):
    kernel.ok("import sys\nsys.setswitchinterval(0.002)")  # the lecture's dial: a cell of its own
    assert kernel.eval("sys.getswitchinterval()") == 0.002
    result = clean(kernel.execute(JOB_MAGICS[magic]("import sys\nsys.setswitchinterval(0.000001)\n")))
    assert kernel.eval("sys.getswitchinterval()") == 0.002
    assert "the switch interval" in text_of(result), "the result says what was put back"
    kernel.ok("sys.setswitchinterval(0.005)")


def test_switchinterval_set_is_kept_because_setting_it_is_what_it_is_for(kernel):
    clean(kernel.execute("%switchinterval 1ms"))
    assert kernel.eval("sys.getswitchinterval()") == 0.001
    kernel.ok("sys.setswitchinterval(0.005)")


@pytest.mark.parametrize("magic", ["gilbench sequential", "gilbench threads", "heartbeat"])
def test_a_process_a_job_leaves_running_is_killed_and_a_cells_own_stays(kernel, magic):
    children = "import psutil\nsorted(' '.join(p.cmdline()) for p in psutil.Process().children(recursive=True))"
    before = kernel.eval(children)
    result = clean(kernel.execute(JOB_MAGICS[magic]("import subprocess\nsubprocess.Popen(['/bin/sleep', '417'])\n")))
    assert kernel.eval(children) == before, "nothing of the job runs on"
    assert "1 child process" in text_of(result)
    kernel.ok("import subprocess\nkept = subprocess.Popen(['/bin/sleep', '418'])")
    kernel.ok("import time\ntime.sleep(0.2)")
    assert kernel.eval(children) == before + ["/bin/sleep 418"], "a plain cell's process is the student's"
    kernel.ok("kept.kill(); kept.wait()")


CHANGES = """import gc, os, signal, sys, threading, warnings
gc.disable()
sys.setrecursionlimit(321)
os.chdir('/')
warnings.simplefilter('error')
os.environ['GILLAB_TEST_LEFT'] = '1'
sys.set_int_max_str_digits(777)
threading.excepthook = lambda args: None
threading.setprofile(lambda *args: None)
os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.umask(0o077)
"""
STATE = ("import gc, os, signal, sys, threading, warnings\n"
         "(gc.isenabled(), sys.getrecursionlimit(), os.getcwd(), len(warnings.filters), "
         "os.environ.get('GILLAB_TEST_LEFT'), sys.get_int_max_str_digits(), threading.excepthook is "
         "threading.__excepthook__, threading.getprofile() is None, len(os.sched_getaffinity(0)), "
         "signal.getsignal(signal.SIGCHLD) == signal.SIG_DFL, oct(os.umask(os.umask(0o022))))")


def test_interpreter_state_a_job_changes_is_put_back_and_named(kernel):
    before = kernel.eval(STATE)
    result = clean(kernel.execute(JOB_MAGICS["gilbench sequential"](CHANGES)))
    assert kernel.eval(STATE) == before
    text = text_of(result)
    for name in ("garbage collection", "the recursion limit", "the working folder", "the warning filters",
                 "the environment", "threading.excepthook", "signal handlers"):
        assert name in text, (name, text)
    # A pool still works: SIGCHLD is back, so its workers can be waited for.
    clean(kernel.execute("%%gilbench --modes processes --workers 2 --jobs 2 --repeats 1 --warmup 0\nx = 1\n"))


def test_the_same_changes_in_a_plain_cell_stay_as_the_student_left_them(fresh_kernel):
    before = fresh_kernel.eval(STATE)
    fresh_kernel.ok(CHANGES)
    after = fresh_kernel.eval(STATE)
    assert after != before and after[0] is False and after[1] == 321 and after[2] == "/"


def test_a_job_that_fails_still_leaves_the_kernel_as_it_was(kernel):
    before = kernel.eval(STATE)
    result = kernel.execute(JOB_MAGICS["gilbench sequential"](
        "import sys, gc\nsys.setswitchinterval(0.000001)\ngc.disable()\nraise ValueError('job')\n"))
    assert result.status == "error"
    assert kernel.eval("sys.getswitchinterval()") == 0.005 and kernel.eval(STATE) == before


def test_an_interrupted_job_still_leaves_the_kernel_as_it_was(kernel):
    before = kernel.eval(STATE)
    kernel.interrupt_after(1.5)
    result = kernel.execute(JOB_MAGICS["gilbench sequential"](
        "import sys, os, time\nsys.setswitchinterval(0.000001)\nos.chdir('/')\ntime.sleep(60)\n"))
    assert result.status == "error"
    assert kernel.eval("sys.getswitchinterval()") == 0.005 and kernel.eval(STATE) == before
    clean(kernel.execute("print('next cell')"))


def test_a_magic_that_changes_nothing_says_nothing_about_restoring(kernel):
    result = clean(kernel.execute(JOB_MAGICS["gilbench sequential"]("x = 1\n")))
    assert "put back" not in text_of(result)


THREADS = "import threading\nsorted(t.name for t in threading.enumerate())"


@pytest.mark.parametrize("magic", ["gilbench sequential", "gilbench threads", "heartbeat"])
def test_a_thread_a_job_leaves_spinning_is_stopped_and_named(kernel, magic):
    before = kernel.eval(THREADS)
    result = clean(kernel.execute(JOB_MAGICS[magic](
        "import threading\ndef spin():\n    while True:\n        pass\n"
        "threading.Thread(target=spin, name='spinner', daemon=True).start()\n")))
    assert kernel.eval(THREADS) == before, "nothing of the job runs on"
    assert "stopped 1 thread (spinner) a job left running" in text_of(result), text_of(result)


def test_a_thread_a_job_leaves_waiting_stays_and_is_named(kernel):
    kernel.ok("import threading\nwake = threading.Event()")  # an object of the student's, outliving the magic
    result = clean(kernel.execute(JOB_MAGICS["gilbench sequential"](
        "import __main__, threading\n"
        "threading.Thread(target=__main__.wake.wait, name='waiter', daemon=True).start()\n")))
    assert "waiter" in kernel.eval(THREADS), "an idle thread holds nothing: it stays"
    assert "left 1 thread (waiter) a job started: waiting, using no CPU" in text_of(result), text_of(result)
    kernel.ok("wake.set()\nimport time\ntime.sleep(0.1)")
    assert "waiter" not in kernel.eval(THREADS)


@pytest.mark.parametrize("mode", ["threads", "processes", "asyncio"])
def test_a_magic_whose_jobs_start_no_thread_says_nothing_of_threads(kernel, mode):
    body = "x = sum(range(1000))\n"
    result = clean(kernel.execute(GILBENCH.format(mode=mode) + (as_coroutine(body) if mode == "asyncio" else body)))
    assert "thread (" not in text_of(result) and "threads (" not in text_of(result), text_of(result)
