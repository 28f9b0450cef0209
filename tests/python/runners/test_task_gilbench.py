"""%%gilbench's measuring loop (gillab/runners/task_gilbench.py) on its own, as a child
interpreter runs it (Python threads and watchdog) and with the kernel's native watchdog."""

import asyncio
import json
import sys
import tempfile
import time
import types

import pytest

from gillab.runners import python_tools, task_gilbench

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
        "    return i\n"
        "def pid(i):\n"
        "    import os\n"
        "    return os.getpid()\n")


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
    assert time.monotonic() - started < 0.2 * 2 + python_tools.STOP_GRACE_S + 5
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


def test_a_failing_async_job_is_named_by_its_index_with_and_without_a_limit(cell):
    async def afail(i):
        if i == 2:
            raise ValueError("bad job")
        return i
    module = task_gilbench.import_cell(cell["folder"], cell["module"])
    module.ajob = afail
    for workers in (2, 4):  # 2 of 4 jobs: limited; 4: a task per job, gathered bare
        with pytest.raises(task_gilbench.JobError) as raised:
            task_gilbench.measure(request(cell, [("asyncio", workers, 4)]))
        assert str(raised.value).startswith("job(2) raised ValueError in mode asyncio with %d workers" % workers)


def test_asyncio_runs_at_most_workers_jobs_at_once_and_all_at_once_with_a_worker_per_job():
    running, most = [0], [0]

    async def ajob(i):
        running[0] += 1
        most[0] = max(most[0], running[0])
        await asyncio.sleep(0.01)
        running[0] -= 1
        return i
    for workers, expected in ((3, 3), (12, 12)):
        most[0] = 0
        assert asyncio.run(task_gilbench.gather_limited(ajob, 12, workers, 60.0)) == list(range(12))
        assert most[0] == expected


def test_the_kernels_native_watchdog_stops_a_run_in_the_same_loop(cell, package_dir):
    _gillab = pytest.importorskip("_gillab")
    module = task_gilbench.import_cell(cell["folder"], cell["module"])
    module.job = module.spin
    native = types.SimpleNamespace(threads=python_tools.python_threads, watchdog=_gillab.BudgetWatchdog,
                                   RunOverBudget=_gillab.RunOverBudget)
    answer = task_gilbench.measure(request(cell, [("sequential", 1, 2)], budget_s=0.2), None, native)
    assert answer["configs"][0]["over_budget"]
    assert sum(1 for _ in range(2_000_000)) == 2_000_000


def fresh_interpreter_tools(parts):
    """The kernel's tools, with in_fresh_interpreter doing what runners/child.py does with a part
    (JSON in, measure(part, progress)), in this process, and keeping each part it was given."""
    def in_fresh_interpreter(part, progress):
        parts.append(json.loads(json.dumps(part)))
        return task_gilbench.measure(parts[-1], progress)
    return types.SimpleNamespace(threads=python_tools.python_threads, watchdog=python_tools.Watchdog,
                                 RunOverBudget=python_tools.RunOverBudget, in_fresh_interpreter=in_fresh_interpreter)


def test_the_kernel_hands_consecutive_pool_runs_to_a_fresh_interpreter_with_its_sequential_results(cell):
    task_gilbench.import_cell(cell["folder"], cell["module"])  # the kernel imports the cell first
    parts, statuses = [], []
    planned = [("sequential", 1, 4), ("processes", 1, 4), ("processes", 2, 4), ("threads", 2, 4), ("processes", 2, 8)]
    answer = task_gilbench.measure(request(cell, planned), statuses.append, fresh_interpreter_tools(parts))
    assert [[c["number"] for c in part["configs"]] for part in parts] == [[1, 2], [4]]
    assert all(part["total"] == 5 for part in parts)
    assert list(parts[0]["reference"]) == ["4"]
    assert [len(f["walls"]) for f in answer["configs"]] == [2] * 5
    # 8 jobs have no sequential run to compare with; the others are compared in the fresh process
    assert [f["results_match"] for f in answer["configs"]] == [None, True, True, True, None]
    assert "processes x 2 workers, 4 jobs, run 2/2 (configuration 3 of 5)" in statuses
    assert statuses[-1] == "processes x 2 workers, 8 jobs, run 2/2 (configuration 5 of 5)"


def test_with_memory_each_configuration_gets_its_peak_from_a_fresh_interpreter_after_its_runs(cell):
    task_gilbench.import_cell(cell["folder"], cell["module"])
    parts, statuses = [], []
    answer = task_gilbench.measure(request(cell, [("sequential", 1, 4), ("processes", 2, 4)], memory=True),
                                   statuses.append, fresh_interpreter_tools(parts))
    assert [part["memory"] for part in parts] == [False]  # the pools' own process measures no memory
    for figures in answer["configs"]:
        assert figures["memory"]["peak_rss_bytes"] > 1_000_000, figures["memory"]
    assert answer["configs"][1]["memory"]["largest_child_rss_bytes"] > 1_000_000
    assert statuses[-2:] == ["sequential x 1 worker, 4 jobs, peak memory in a fresh process (configuration 1 of 2)",
                             "processes x 2 workers, 4 jobs, peak memory in a fresh process (configuration 2 of 2)"]
    assert answer["start_method"] in ("fork", "forkserver", "spawn")


def test_without_memory_no_configuration_runs_again(cell):
    answer = task_gilbench.measure(request(cell, [("sequential", 1, 4)]))
    assert "memory" not in answer["configs"][0]


def test_pool_results_that_differ_from_the_kernels_sequential_ones_are_reported(cell):
    module = task_gilbench.import_cell(cell["folder"], cell["module"])
    module.job = module.pid  # the kernel's pid in sequential, a worker's in the pool
    answer = task_gilbench.measure(request(cell, [("sequential", 1, 2), ("processes", 2, 2)]), None,
                                   fresh_interpreter_tools([]))
    assert [f["results_match"] for f in answer["configs"]] == [None, False]


def test_a_pool_stopped_at_the_budget_in_the_fresh_interpreter_skips_its_larger_runs_in_the_kernel(cell):
    module = task_gilbench.import_cell(cell["folder"], cell["module"])
    module.job = module.spin
    planned = [("processes", 2, 2), ("threads", 2, 2), ("processes", 2, 4)]
    answer = task_gilbench.measure(request(cell, planned, budget_s=0.3), None, fresh_interpreter_tools([]))
    pool, threads, larger_pool = answer["configs"]
    assert pool["over_budget"] and threads["over_budget"]
    assert larger_pool["skipped"]


def test_cpu_seconds_counts_this_process_at_microsecond_resolution():
    before = task_gilbench.cpu_seconds()
    start = time.process_time()
    while time.process_time() - start < 0.003:
        pass
    assert 0.002 < task_gilbench.cpu_seconds() - before < 1.0
