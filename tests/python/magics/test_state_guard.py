"""gillab.magics.state_guard on its own (no kernel): a guard puts back what happened inside it and
says so in one note, nested guards each put back their own snapshot, the keep flags mark the
innermost guard, and an error or KeyboardInterrupt leaves through the guard as it was raised. The
threads are stopped with the kernel's native tools (`_gillab.thread_tools`)."""

import gc
import subprocess
import sys
import threading

import pytest

import _gillab
from gillab.magics.state_guard import MagicStateGuard, keep_interpreter_state, keep_switch_interval


def guard():
    return MagicStateGuard(_gillab.thread_tools)


@pytest.fixture
def interval():
    """The switch interval as the test found it (put back after, whatever the test did)."""
    found = sys.getswitchinterval()
    yield found
    sys.setswitchinterval(found)


def ms(seconds):
    return f"{seconds * 1e3:g} ms"


def test_a_guard_inside_which_nothing_changed_says_nothing():
    with guard() as g:
        x = sum(range(100))
        assert g.restore() == ""
    assert x == 4950


def test_a_changed_switch_interval_is_put_back_and_the_note_says_from_what_to_what(interval):
    with guard() as g:
        sys.setswitchinterval(0.001)
        note = g.restore()
    assert sys.getswitchinterval() == interval
    assert note == f"gillab: put back after the jobs: the switch interval (a job set 1 ms; back to {ms(interval)})."


def test_the_interpreter_state_is_put_back_and_named_beside_the_interval(interval):
    assert gc.isenabled()
    with guard() as g:
        sys.setswitchinterval(0.002)
        gc.disable()
        note = g.restore()
    assert gc.isenabled() and sys.getswitchinterval() == interval
    assert note == (f"gillab: put back after the jobs: the switch interval (a job set 2 ms; back to "
                    f"{ms(interval)}), garbage collection.")


def test_nested_guards_each_put_back_their_own_snapshot(interval):
    with guard() as outer:
        sys.setswitchinterval(0.002)
        with guard() as inner:
            sys.setswitchinterval(0.001)
            inner_note = inner.restore()
        assert sys.getswitchinterval() == 0.002
        outer_note = outer.restore()
    assert sys.getswitchinterval() == interval
    assert "a job set 1 ms; back to 2 ms" in inner_note
    assert f"a job set 2 ms; back to {ms(interval)}" in outer_note


def test_keep_switch_interval_keeps_it_for_the_innermost_guard_only(interval):
    with guard() as outer:
        with guard() as inner:
            sys.setswitchinterval(0.001)
            keep_switch_interval()
            assert inner.restore() == ""
        assert sys.getswitchinterval() == 0.001, "the magic that set it keeps it"
        assert "the switch interval (a job set 1 ms" in outer.restore()
    assert sys.getswitchinterval() == interval


def test_keep_interpreter_state_keeps_it_for_the_innermost_guard_only():
    with guard() as outer:
        with guard() as inner:
            gc.disable()
            keep_interpreter_state()
            assert inner.restore() == ""
        assert not gc.isenabled()
        assert outer.restore() == "gillab: put back after the jobs: garbage collection."
    assert gc.isenabled()


def test_the_keep_flags_do_nothing_outside_a_guard(interval):
    keep_switch_interval()
    keep_interpreter_state()
    with guard() as g:
        sys.setswitchinterval(0.001)
        assert "the switch interval" in g.restore(), "a flag set before the guard was opened is not its own"
    assert sys.getswitchinterval() == interval


@pytest.mark.parametrize("error_type", [ValueError, KeyboardInterrupt])
def test_leaving_on_an_error_puts_back_and_the_error_passes_as_raised(interval, error_type):
    error = error_type("the job's own")
    with pytest.raises(error_type) as raised:
        with guard():
            sys.setswitchinterval(0.001)
            gc.disable()
            raise error
    assert raised.value is error and raised.value.__context__ is None
    assert sys.getswitchinterval() == interval and gc.isenabled()


def test_leaving_after_restore_puts_back_nothing_more(interval):
    with guard() as g:
        sys.setswitchinterval(0.001)
        g.restore()
        sys.setswitchinterval(0.002)  # after the magic's restore: not its jobs' doing
    assert sys.getswitchinterval() == 0.002


def test_a_child_process_left_running_is_killed_and_counted():
    with guard() as g:
        left = subprocess.Popen(["/bin/sleep", "419"])
        note = g.restore()
    assert left.poll() is not None, "nothing of the job runs on"
    assert note == "gillab: stopped 1 child process a job left running."


# SystemExit ends a thread silently under threading's own excepthook; pytest's hook reports it.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_spinning_thread_is_stopped_and_a_waiting_one_left_and_both_named():
    wake = threading.Event()

    def spin():
        while True:
            pass
    with guard() as g:
        spinner = threading.Thread(target=spin, name="spinner", daemon=True)
        waiter = threading.Thread(target=wake.wait, name="waiter", daemon=True)
        spinner.start()
        waiter.start()
        note = g.restore()
    try:
        assert not spinner.is_alive() and waiter.is_alive()
        assert note == ("gillab: stopped 1 thread (spinner) a job left running; "
                        "left 1 thread (waiter) a job started: waiting, using no CPU.")
    finally:
        wake.set()
        waiter.join()


def test_a_thread_that_ends_by_itself_is_not_mentioned():
    with guard() as g:
        threading.Thread(target=sum, args=(range(10),), name="short").start()
        assert g.restore() == ""
