"""python_tools: a child interpreter's stand-ins answer as the kernel's native pool does."""

import threading

from gillab.runners import python_tools


def test_the_pool_runs_every_job_and_times_from_the_release():
    run = python_tools.PYTHON_TOOLS.threads(lambda i: i * i, 6, 3, 10.0)
    assert run["results"] == [i * i for i in range(6)]
    assert run["failed_job"] is None and run["over_budget"] is False
    assert 0 <= run["wall_s"] < 10


def test_a_failing_job_is_handed_back_as_the_exception_with_its_index():
    def job(i):
        if i == 2:
            raise ValueError("two")
        return i
    run = python_tools.PYTHON_TOOLS.threads(job, 4, 4, 10.0)
    assert run["failed_job"] == 2
    assert isinstance(run["error"], ValueError)


def test_the_pool_uses_as_many_threads_as_workers_asked_for():
    seen = set()
    barrier = threading.Barrier(3, timeout=10)

    def job(i):
        seen.add(threading.get_ident())
        barrier.wait()  # three jobs at once, or it breaks
        return i
    run = python_tools.PYTHON_TOOLS.threads(job, 3, 3, 10.0)
    assert run["failed_job"] is None, run["error"]
    assert len(seen) == 3
