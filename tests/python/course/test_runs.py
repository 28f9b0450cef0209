"""gillab.course.runs: figures read from %%gilbench results."""

import pytest

from gillab.course import best_speedup, busy_note, fastest, wall_at_least


class FakeBench:
    """The parts of a %%gilbench result the helpers read: runs (min wall per configuration) and rows."""

    def __init__(self, walls, cores=None, speedups=None):
        self.speedups = speedups or {}
        self.runs = [{"mode": mode, "workers": workers, "jobs": jobs, "wall_s": {"min": wall}, "wall_runs_s": [wall]}
                     for (mode, workers, jobs), wall in walls.items()]
        self.rows = [{"mode": mode, "workers": workers, "cores_used": (cores or {}).get(mode, 1.0)}
                     for (mode, workers, _jobs) in walls]

    def speedup(self, mode, workers=1):
        if (mode, workers) not in self.speedups:
            raise KeyError(f"no run for mode '{mode}' with {workers} workers")
        return self.speedups[(mode, workers)]


def test_fastest_reads_the_fastest_run():
    strong = FakeBench({("sequential", 1, 8): 2.0, ("processes", 4, 8): 0.5})
    assert fastest(strong, "processes", 4) == 0.5
    with pytest.raises(KeyError, match="no run for threads with 3 workers"):
        fastest(strong, "threads", 3)


def test_best_speedup_is_the_magics_own_speedup_from_the_first_result_that_has_it():
    assert best_speedup(FakeBench({}, speedups={("processes", 4): 3.9}), "processes", 4) == 3.9
    unmeasured = FakeBench({}, speedups={("threads", 2): None})  # stopped, or no sequential run
    assert best_speedup([FakeBench({}), unmeasured, FakeBench({}, speedups={("threads", 2): 1.7})], "threads", 2) == 1.7
    with pytest.raises(KeyError, match="no speed-up for threads with 3 workers"):
        best_speedup(unmeasured, "threads", 3)


def test_busy_note_only_when_sequential_code_lacked_a_core():
    assert busy_note(FakeBench({("sequential", 1, 8): 1.0}, cores={"sequential": 0.98})) == ""
    busy = busy_note(FakeBench({("sequential", 1, 8): 1.0}, cores={"sequential": 0.4}), lead="  ")
    assert busy.startswith("  Note: the machine was busy") and "0.40 of a core" in busy


class BudgetedBench:
    """A %%gilbench result's runs as the budget leaves them: timed, stopped, or skipped."""

    budget_s = 15.0

    def __init__(self, *runs):
        self.runs = [{"mode": mode, "workers_spec": "per-job", "jobs": jobs, "over_budget": stopped,
                      "skipped": skipped, "wall_s": None if stopped or skipped else {"median": wall, "min": wall}}
                     for mode, jobs, wall, stopped, skipped in runs]


def test_wall_at_least_gives_the_budget_as_a_lower_bound_for_a_stopped_or_skipped_run():
    bench = BudgetedBench(("asyncio", 10_000, 0.4, False, False), ("threads", 1_000, 0.3, False, False),
                          ("threads", 10_000, None, True, False), ("threads", 20_000, None, False, True))
    assert wall_at_least(bench, "asyncio", "per-job", 10_000) == (0.4, True)
    assert wall_at_least(bench, "threads", "per-job", 10_000) == (15.0, False)
    assert wall_at_least(bench, "threads", "per-job", 20_000) == (15.0, False)
    with pytest.raises(KeyError, match="no run for threads with per-job workers and 5 jobs"):
        wall_at_least(bench, "threads", "per-job", 5)
