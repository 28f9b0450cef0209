"""%%gilbench --budget: a run still going when its budget is spent is stopped
(threads and the shell get RunOverBudget, worker processes are killed,
asyncio tasks cancelled), reported in its row, and the kernel is clean after."""

import time

import psutil
import pytest

from pythons import live_children

SPIN_JOB = "def job(i):\n    while True:\n        pass\n"


def gilbench(kernel, options, body, timeout=120):
    return kernel.execute(f"%%gilbench {options}\n{body}", timeout=timeout)


@pytest.mark.parametrize("mode", ["sequential", "threads", "processes"])
def test_a_spinning_job_is_stopped_at_the_budget_and_reported(kernel, mode):
    children_before = live_children(kernel)
    threads_before = psutil.Process(kernel.pid).num_threads()
    started = time.monotonic()
    result = gilbench(kernel, f"--modes {mode} --workers 2 --jobs 2 --repeats 3 --budget 0.5s -o r", SPIN_JOB)
    took = time.monotonic() - started
    assert result.status == "ok", result.reply["content"]
    assert took < 0.5 + 10, took  # stopped once, not once per repeat
    run = kernel.eval("r.to_dict()['data']['runs'][0]")
    assert run["over_budget"] is True and run["wall_s"] is None
    assert "stopped at --budget" in result.value()
    assert kernel.eval(f"r.wall('{mode}', 2) is None") is True
    assert kernel.eval("r.over_budget") is True
    time.sleep(0.5)
    assert live_children(kernel) <= children_before
    assert psutil.Process(kernel.pid).num_threads() <= threads_before
    # no RunOverBudget left pending for the shell thread to hit later
    assert kernel.eval("sum(1 for _ in range(3_000_000))") == 3_000_000


def test_asyncio_tasks_are_cancelled_at_the_budget(kernel):
    body = "import asyncio\nasync def ajob(i):\n    await asyncio.sleep(3600)\n"
    result = gilbench(kernel, "--workers 4 --jobs 4 --repeats 1 --budget 0.3s -o r", body)
    assert result.status == "ok", result.reply["content"]
    assert kernel.eval("r.wall('asyncio', 4) is None") is True
    assert kernel.eval("r.over_budget") is True


def test_a_job_that_blocks_the_event_loop_is_stopped_too(kernel):
    body = "async def ajob(i):\n    while True:\n        pass\n"
    result = gilbench(kernel, "--workers 1 --jobs 1 --repeats 1 --budget 0.3s -o r", body, timeout=30)
    assert result.status == "ok", result.reply["content"]
    assert kernel.eval("r.over_budget") is True
    assert kernel.eval("sum(1 for _ in range(3_000_000))") == 3_000_000


def test_other_configurations_still_run_after_one_goes_over(kernel):
    body = "import time\ndef job(i):\n    time.sleep(0.05)\n    return i\n"
    result = gilbench(kernel, "--modes sequential,threads --workers 8 --jobs 24 --repeats 1 --budget 0.6s -o r", body)
    assert result.status == "ok", result.reply["content"]
    assert kernel.eval("r.wall('sequential') is None") is True  # 24 x 50 ms = 1.2 s > 0.6 s
    assert 0.15 <= kernel.eval("r.wall('threads', 8)") < 0.6


def test_a_run_within_budget_is_not_flagged(kernel):
    result = gilbench(kernel, "--modes sequential,threads --workers 2 --jobs 2 --repeats 1 --budget 5s -o r",
                      "def job(i):\n    return i\n")
    assert result.status == "ok", result.reply["content"]
    assert kernel.eval("r.over_budget") is False
    assert "stopped" not in result.value()


def test_thousands_of_threads_finish_or_stop_and_leave_no_thread_behind(kernel):
    # beyond 64 workers the pool wakes them in a chain; every path must still end every thread
    threads_before = psutil.Process(kernel.pid).num_threads()
    body = "import time\ndef job(i):\n    time.sleep(0.02)\n    return i\n"
    result = gilbench(kernel, "--modes sequential,threads --workers per-job --jobs 200 --repeats 1 --warmup 0 "
                              "--budget 60s -o r", body)
    assert result.status == "ok", result.reply["content"]
    assert kernel.eval("r.results_match") is True
    assert kernel.eval("r.wall('threads', 'per-job')") < 10
    result = gilbench(kernel, "--modes threads --workers per-job --jobs 2000 --repeats 1 --warmup 0 --budget 0.05s -o r",
                      body)
    assert result.status == "ok", result.reply["content"]
    assert kernel.eval("r.over_budget") is True
    time.sleep(0.5)
    assert psutil.Process(kernel.pid).num_threads() <= threads_before
