"""%switchinterval --sweep's one loop (gillab/runners/task_switchinterval.py) as a child runs it:
the Python probe thread beside a Python spinner. (In the kernel the same loop gets the native
probe: tests/kernel/test_switchinterval.py.)"""

import sys

import pytest

from gillab.runners import task_switchinterval


def request(**changes):
    base = {"intervals_s": [0.005, 0.001], "capacities": [500, 500], "probe": "sleep", "load": "python",
            "every_s": 0.001, "duration_s": 0.1, "settle_s": 0.01}
    base.update(changes)
    return base


def test_each_interval_is_measured_in_order_under_that_interval():
    answer = task_switchinterval.measure(request())
    assert [run["interval_s"] for run in answer["runs"]] == [0.005, 0.001]
    for run in answer["runs"]:
        assert run["applied_interval_s"] == pytest.approx(run["interval_s"])
        assert run["window_s"] >= 0.1
        assert run["spinner_steps"] > 0
        assert run["probe"]["acquisitions"] > 0 and run["probe"]["samples"]


def test_the_caller_s_interval_is_back_after_the_sweep_and_after_an_interrupt():
    saved = sys.getswitchinterval()
    task_switchinterval.measure(request())
    assert sys.getswitchinterval() == saved

    def interrupt(text):
        if text.startswith("interval 1 ms"):
            raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        task_switchinterval.measure(request(), progress=interrupt)
    assert sys.getswitchinterval() == saved


def test_progress_names_the_spinner_then_each_interval():
    heard = []
    task_switchinterval.measure(request(duration_s=0.02), progress=heard.append)
    assert heard == ["starting the python spinner", "interval 5 ms (1 of 2)", "interval 1 ms (2 of 2)"]


def test_no_probe_and_no_spinner_leave_their_fields_empty():
    answer = task_switchinterval.measure(request(probe="none", duration_s=0.02))
    assert all(run["probe"] is None for run in answer["runs"])
    answer = task_switchinterval.measure(request(load="none", duration_s=0.02))
    assert all(run["spinner_steps"] == 0 for run in answer["runs"])


def test_an_unknown_load_is_a_one_line_cell_error():
    with pytest.raises(task_switchinterval.CellError, match="no spinner load named 'lava'"):
        task_switchinterval.measure(request(load="lava"))
