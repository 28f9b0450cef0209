"""%gilbench --preset, --workers default/per-job, several --jobs and --memory
over the protocol: the course's tables in one call each, with the published
figures and the physical limits beside the measured ones."""

import pytest
from result_bundle import RESULT_MIME

SLEEPS = ("import asyncio, time\ndef job(i):\n    time.sleep(0.05)\n    return i\n"
          "async def ajob(i):\n    await asyncio.sleep(0.05)\n    return i\n")
PRESETS = ["cpu", "io", "sleep", "zlib", "hashlib-small", "hashlib-large", "startup"]


def gilbench(kernel, options, body="", timeout=300):
    return kernel.execute(f"%%gilbench {options}\n{body}", timeout=timeout)


@pytest.mark.parametrize("name", PRESETS)
def test_every_preset_runs_its_own_job_and_shows_its_source(kernel, name):
    # the smallest version of each table: its job, options and published rows work
    result = kernel.execute(f"%gilbench --preset {name} --jobs 1 --workers 1 --repeats 1 --warmup 0 -o r", timeout=300)
    assert result.status == "ok", result.reply["content"]
    assert kernel.eval("r.preset") == name
    assert kernel.eval("r.published_source") is not None
    assert kernel.eval("r.results_match") is True
    assert "published:" in result.value()


def test_sleep_preset_shows_published_figures_and_the_floor(kernel):
    result = kernel.execute("%gilbench --preset sleep --workers 8 --repeats 1 --warmup 0 -o r", timeout=120)
    assert result.status == "ok", result.reply["content"]
    runs = kernel.eval("{(x['mode'], x['workers']): x for x in r.runs}")
    threads = runs[("threads", 8)]
    assert threads["published"] == {"wall_s": 0.0511, "speedup": 7.86, "peak_rss_mb": None}
    assert threads["fastest_possible_s"] == pytest.approx(0.05)
    assert threads["wall_s"]["median"] >= 0.05  # a 50 ms sleep can't finish sooner
    assert runs[("sequential", 1)]["fastest_possible_s"] == pytest.approx(0.4)
    columns = [c["key"] for c in result.result_data()[RESULT_MIME]["columns"]]
    assert {"published_wall", "published_speedup", "fastest_possible"} <= set(columns)


def test_a_preset_with_the_students_own_cell_keeps_options_but_not_published_figures(kernel):
    result = gilbench(kernel, "--preset sleep --workers 2 --repeats 1 --warmup 0 -o r", "def job(i):\n    return i\n")
    assert result.status == "ok", result.reply["content"]
    assert kernel.eval("[(x['mode'], x['workers'], x['jobs']) for x in r.runs]") == [("sequential", 1, 8), ("threads", 2, 8)]
    assert kernel.eval("r.published_source is None") is True
    assert "leave the cell empty to compare" in result.value()


def test_workers_default_and_per_job_follow_the_libraries(kernel):
    result = gilbench(kernel, "--modes threads,asyncio --workers default,per-job --jobs 10,20 --repeats 1 --warmup 0 -o r",
                      SLEEPS)
    assert result.status == "ok", result.reply["content"]
    default = kernel.eval("min(32, __import__('os').cpu_count() + 4)")
    rows = kernel.eval("[(x['mode'], x['workers_spec'], x['workers'], x['jobs']) for x in r.runs]")
    # asyncio.gather's default is no limit: the same run as per-job, measured once
    assert rows == [("threads", "default", default, 10), ("threads", "default", default, 20),
                    ("threads", "per-job", 10, 10), ("threads", "per-job", 20, 20),
                    ("asyncio", "per-job", 10, 10), ("asyncio", "per-job", 20, 20)]
    if default < 20:  # 20 waits in a smaller pool take several rounds
        assert kernel.eval("r.wall('threads', 'default', 20)") > 1.5 * kernel.eval("r.wall('threads', 'per-job', 20)")
    assert kernel.eval("r.wall('asyncio', 'default', jobs=20) == r.wall('asyncio', 'per-job', jobs=20)") is True


def test_memory_is_measured_per_mode_in_a_fresh_process(kernel):
    result = gilbench(kernel, "--modes threads,asyncio --workers per-job --jobs 1000 --repeats 1 --warmup 0 --memory -o r",
                      SLEEPS)
    assert result.status == "ok", result.reply["content"]
    threads, tasks = kernel.eval("r.peak_rss_mib('threads', 'per-job'), r.peak_rss_mib('asyncio', 'per-job')")
    assert 5 < tasks < 500 and 5 < threads < 2000
    assert threads > tasks  # 1000 OS threads cost more than 1000 tasks
    assert "peak RSS (MiB)" in result.value()


def test_larger_jobs_are_skipped_once_fewer_went_over_budget(kernel):
    result = gilbench(kernel, "--modes threads --workers 2 --jobs 10,20 --repeats 1 --warmup 0 --budget 0.1s -o r", SLEEPS)
    assert result.status == "ok", result.reply["content"]
    runs = kernel.eval("r.runs")
    assert [(x["jobs"], x["over_budget"], x["skipped"]) for x in runs] == [(10, True, False), (20, False, True)]
    assert "not run: fewer jobs went over --budget" in result.value()


@pytest.mark.parametrize("line, fragment", [
    ("%gilbench --preset turbo", "'turbo'"),
    ("%gilbench", "--preset NAME"),
    ("%gilbench --preset io --workers fast", "default, per-job"),
    ("%gilbench --preset io --workers per-job --jobs 20000", "beyond the cap of 10000"),
    ("%gilbench --preset cpu --workers default,per-job --jobs 100", "beyond the cap of 64"),
])
def test_bad_presets_and_worker_words_get_one_line_errors(kernel, line, fragment):
    content = kernel.execute(line).reply["content"]
    assert content["ename"] == "UsageError", content
    assert fragment in content["evalue"] and "\n" not in content["evalue"]


def test_help_documents_every_preset_with_its_call(kernel):
    manual = kernel.eval("__import__('_gillab').help('gilbench')")
    for name in PRESETS:
        assert f"%gilbench --preset {name}" in manual
    assert "per-job" in manual and "--memory" in manual


def test_interrupt_during_the_memory_run_kills_the_fresh_interpreter(kernel):
    import time

    import psutil
    before = {p.pid for p in psutil.Process(kernel.pid).children(recursive=True)}
    # quick in the kernel, a minute in the fresh interpreter that measures memory
    body = ("import sys, time\nIN_CHILD = sys.argv[0].endswith('peak_rss.py')\n"
            "def job(i):\n    time.sleep(60 if IN_CHILD else 0.01)\n    return i\n")

    kernel.interrupt_after(2.0)
    started = time.monotonic()
    result = gilbench(kernel, "--modes sequential --jobs 1 --repeats 1 --warmup 0 --memory", body, timeout=60)
    assert time.monotonic() - started < 2.0 + 3.0
    assert result.reply["content"]["ename"] == "KeyboardInterrupt", result.reply["content"]
    time.sleep(0.5)
    live = {p.pid for p in psutil.Process(kernel.pid).children(recursive=True) if p.status() != psutil.STATUS_ZOMBIE}
    assert live <= before
    assert kernel.eval("1+1") == 2


def test_a_run_stopped_at_the_budget_still_gets_its_memory_figure(kernel):
    body = ("import sys, time\nIN_CHILD = sys.argv[0].endswith('peak_rss.py')\n"
            "def job(i):\n    time.sleep(0.001 if IN_CHILD else 0.05)\n    return i\n")
    result = gilbench(kernel, "--modes threads --workers 2 --jobs 10 --repeats 1 --warmup 0 --budget 0.1s --memory -o r",
                      body)
    assert result.status == "ok", result.reply["content"]
    assert kernel.eval("r.wall('threads', 2) is None") is True
    assert kernel.eval("r.peak_rss_mib('threads', 2)") > 5
