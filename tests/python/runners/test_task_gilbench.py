"""%%gilbench's measuring loop (gillab/runners/task_gilbench.py) on its own, as a child
interpreter runs it (Python threads and watchdog) and with the kernel's native watchdog."""

import sys
import tempfile
import time
import types

import pytest

from gillab.runners import task_gilbench

CELL = ("import asyncio, threading\n"
        "def job(i):\n"
        "    return i * i\n"
        "async def ajob(i):\n"
        "    await asyncio.sleep(0.01)\n"
        "    return i * i\n"
        "def spin(i):\n"
        "    while True:\n"
        "        pass\n"
        "def fail(i):\n"
        "    if i == 2:\n"
        "        raise ValueError('bad job')\n"
        "    return i\n")


@pytest.fixture
def cell(tmp_path, monkeypatch):
    """The cell as an importable module in its own folder; sys.path and tempfile restored after."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.setattr(tempfile, "tempdir", tempfile.tempdir)
    name = "gillab_cell_%d" % (time.monotonic_ns() % 10**9)
    (tmp_path / (name + ".py")).write_text(CELL)
    yield {"folder": str(tmp_path), "module": name}
    sys.modules.pop(name, None)


def request(cell, configs, **options):
    planned = [{"mode": mode, "workers": workers, "workers_spec": str(workers), "jobs": jobs, "base_jobs": jobs}
               for mode, workers, jobs in configs]
    return {"folder": cell["folder"], "module": cell["module"], "configs": planned, "repeats": 2, "warmup": 1,
            "budget_s": 60.0, "start_method": "fork", "startup_included": True, "weak_scaling": False, **options}


def test_every_mode_gives_one_figure_per_repeat_and_matches_sequential(cell):
    statuses = []
    answer = task_gilbench.measure(
        request(cell, [("sequential", 1, 6), ("threads", 3, 6), ("processes", 2, 6), ("asyncio", 3, 6)]),
        statuses.append)
    for figures in answer["configs"]:
        assert len(figures["walls"]) == 2 and len(figures["cpus"]) == 2
        assert all(w > 0 for w in figures["walls"])
        assert not figures["over_budget"] and not figures["skipped"]
    assert [f["results_match"] for f in answer["configs"]] == [None, True, True, True]
    assert statuses[0] == "sequential x 1 worker, 6 jobs, warm-up 1 (configuration 1 of 4)"
    assert statuses[-1] == "asyncio x 3 workers, 6 jobs, run 2/2 (configuration 4 of 4)"


def test_a_spinning_job_is_stopped_at_the_budget_and_larger_runs_are_skipped(cell):
    spinning = request(cell, [("sequential", 1, 2), ("sequential", 1, 4), ("threads", 2, 2)], budget_s=0.2)
    module = task_gilbench.import_cell(cell["folder"], cell["module"])
    module.job = module.spin
    started = time.monotonic()
    answer = task_gilbench.measure(spinning)
    assert time.monotonic() - started < 0.2 * 2 + task_gilbench.STOP_GRACE_S + 5
    first, larger, threads = answer["configs"]
    assert first["over_budget"] and first["walls"] == []
    assert larger["skipped"]
    assert threads["over_budget"]
    assert sum(1 for _ in range(2_000_000)) == 2_000_000  # no RunOverBudget left pending here


def test_a_failing_job_names_itself_its_mode_and_its_workers(cell):
    module = task_gilbench.import_cell(cell["folder"], cell["module"])
    module.job = module.fail
    for mode, workers in (("sequential", 1), ("threads", 2), ("processes", 2)):
        with pytest.raises(task_gilbench.JobError) as raised:
            task_gilbench.measure(request(cell, [(mode, workers, 4)]))
        assert str(raised.value).startswith("job(2) raised ValueError in mode %s with %d worker" % (mode, workers))
        assert isinstance(raised.value.__cause__, ValueError)


def test_the_kernels_native_watchdog_stops_a_run_in_the_same_loop(cell, package_dir):
    _gillab = pytest.importorskip("_gillab")
    module = task_gilbench.import_cell(cell["folder"], cell["module"])
    module.job = module.spin
    native = types.SimpleNamespace(threads=task_gilbench.python_threads, watchdog=_gillab.BudgetWatchdog,
                                   RunOverBudget=_gillab.RunOverBudget)
    answer = task_gilbench.measure(request(cell, [("sequential", 1, 2)], budget_s=0.2), None, native)
    assert answer["configs"][0]["over_budget"]
    assert sum(1 for _ in range(2_000_000)) == 2_000_000


def test_cpu_seconds_counts_this_process_at_microsecond_resolution():
    before = task_gilbench.cpu_seconds()
    start = time.process_time()
    while time.process_time() - start < 0.003:
        pass
    assert 0.002 < task_gilbench.cpu_seconds() - before < 1.0
