"""gillab.published and gillab.lectures: the published-figures file and the helpers the lecture
notebooks call (tables, predictions, key results, the course-wide decision table, child runs,
bytecode listings, debug mode), exercised in the installed package and, where they read magic
results or display, through the real kernel."""

import json
import logging
import os
import sys

import pytest

from conftest import BUILD_DIR
from pythons import PYENV_39

sys.path.insert(0, os.path.join(BUILD_DIR, "prefix", "lib", "gillab", "python"))

from gillab import published  # noqa: E402
from gillab.lectures import (best_speedup, busy_note, compare, decision_table, describe, fastest,  # noqa: E402
                             find_python, keep, load_all, table)
from gillab.lectures.asyncio_debug import slow_callbacks  # noqa: E402
from gillab.lectures.bytecode import loop_body, loop_body_in  # noqa: E402
from gillab.lectures.children import run_file  # noqa: E402
from gillab.lectures.decisions import SITUATIONS, rows  # noqa: E402


class FakeBench:
    """The parts of a %%gilbench result the helpers read: runs (min wall per configuration) and rows."""

    def __init__(self, walls, cores=None):
        self.runs = [{"mode": mode, "workers": workers, "jobs": jobs, "wall_s": {"min": wall}, "wall_runs_s": [wall]}
                     for (mode, workers, jobs), wall in walls.items()]
        self.rows = [{"mode": mode, "workers": workers, "cores_used": (cores or {}).get(mode, 1.0)}
                     for (mode, workers, _jobs) in walls]


def test_every_published_figure_names_an_article_with_title_and_setup():
    assert len(published.names()) >= 20
    for name in published.names():
        article = published.source(name)
        assert article["title"] and article["setup"] and article["short"], name
        assert published.figure(name)["what"], name
        assert published.cite(name).startswith('"' + article["title"])


def test_published_figures_hold_the_articles_headline_numbers():
    assert published.figure("cpu_pools")["wall_s"]["processes"]["4"] == 0.52
    assert published.figure("pool_startup")["wall_s"] == 0.099
    assert published.figure("io_waits")["peak_rss_mb"]["10000"] == {"threads-per-job": 90, "asyncio": 39}
    assert published.figure("heartbeat")["rows"]["time.sleep"]["max_gap_ms"] == 510.1
    assert published.figure("long_c_op")["worst_ms"] == 379.826
    assert published.figure("hashlib_threshold")["bytes"] == 2048


def test_an_unknown_published_figure_is_a_key_error_listing_the_known_ones():
    with pytest.raises(KeyError, match="no published figure 'nope'; known: switch_interval"):
        published.figure("nope")


def test_table_aligns_formats_and_rejects_ragged_rows():
    text = table(["mode", "wall (s):"], [("threads", 1.23456), ("none", None), ("jobs", 12000)]).data
    lines = text.splitlines()
    assert lines[0] == "| mode | wall (s) |" and lines[1] == "| --- | ---: |"
    assert lines[2] == "| threads | 1.235 |" and lines[3] == "| none |  |" and lines[4] == "| jobs | 12,000 |"
    with pytest.raises(ValueError, match="a row has 1 cells for 2 columns"):
        table(["a", "b"], [("only one",)])


def test_compare_says_when_no_guess_was_written_and_judges_a_guess():
    assert "You wrote no guess" in compare("x", None, 1.0).sentence()
    close = compare("threads", 1.1, 1.0, 0.99, figure="thread_scaling_cpu")
    assert close.close and "was close" in close.sentence() and "published 0.99x (3.13.2, 12 cores)" in close.sentence()
    high = compare("threads", 4.0, 1.0)
    assert high.close is False and "too high" in high.sentence()
    assert "too low" in compare("gap", 10, 500, unit="ms").sentence()
    assert compare("lost", 30.0, 34.0, unit="%", tolerance=0.05).close  # within 5 points


def test_fastest_and_best_speedup_read_the_fastest_run_and_compare_rates():
    strong = FakeBench({("sequential", 1, 8): 2.0, ("processes", 4, 8): 0.5})
    assert fastest(strong, "processes", 4) == 0.5 and best_speedup(strong, "processes", 4) == 4.0
    weak = FakeBench({("sequential", 1, 1): 1.0, ("threads", 2, 2): 1.0})  # twice the work in the same time
    assert best_speedup(weak, "threads", 2) == 2.0
    assert best_speedup([FakeBench({("sequential", 1, 8): 2.0}), FakeBench({("threads", 2, 8): 2.0})], "threads", 2) == 1.0
    with pytest.raises(KeyError, match="no run for threads with 3 workers"):
        fastest(strong, "threads", 3)


def test_busy_note_only_when_sequential_code_lacked_a_core():
    assert busy_note(FakeBench({("sequential", 1, 8): 1.0}, cores={"sequential": 0.98})) == ""
    busy = busy_note(FakeBench({("sequential", 1, 8): 1.0}, cores={"sequential": 0.4}), lead="  ")
    assert busy.startswith("  Note: the machine was busy") and "0.40 of a core" in busy


def test_describe_and_find_python_read_gilinfo_results():
    class Info:
        usable_cpus, gil_enabled, python_version = 12, True, "3.11.2"
        switch_interval_ms, default_thread_pool_workers, default_start_method = 5.0, 16, "fork"

    text = describe(Info())
    assert "12 CPUs" in text and "16 workers" in text and "by fork" in text and "with the GIL" in text

    class Found:
        interpreters = [{"version": "3.9.6", "executable": "/a/3.9.6"}, {"version": "3.9.18", "executable": "/b/3.9.18"},
                        {"version": "3.13.5", "executable": "/t", "free_threaded_build": True}]

    assert find_python(Found(), "3.9") == "/b/3.9.18"
    assert find_python(Found(), "3.13") is None and find_python(Found(), "3.13", free_threaded=True) == "/t"


def test_key_results_round_trip_and_a_broken_file_is_skipped(tmp_path, capsys):
    kept = keep(2, folder=tmp_path, sequential_s=1.5, best_processes_workers=4, note="quiet")
    path = kept.path
    assert repr(kept) == "kept 3 key results of lecture 2 in lecture-02-key-results.json"
    assert path.name == "lecture-02-key-results.json"
    record = json.loads(path.read_text())
    assert record["lecture"] == 2 and record["figures"]["sequential_s"] == 1.5 and record["cpus"] >= 1
    (tmp_path / "lecture-07-key-results.json").write_text("{half a file")
    assert load_all(tmp_path) == {2: {"sequential_s": 1.5, "best_processes_workers": 4, "note": "quiet"}}
    assert "skipped lecture-07-key-results.json" in capsys.readouterr().out
    with pytest.raises(ValueError, match="lecture must be a lecture number"):
        keep("two", folder=tmp_path)
    with pytest.raises(TypeError, match="a key result must be a number"):
        keep(3, folder=tmp_path, result=object())


def test_decision_table_fills_rows_from_kept_figures_and_names_the_lecture_to_run(tmp_path):
    keep(5, folder=tmp_path, blocked_gap_ms=512.0, awaited_gap_ms=11.0, offloaded_gap_ms=14.0)
    found = {lecture: text for _situation, _choice, text, lecture in rows(load_all(tmp_path))}
    assert found[5] == "loop stood still 512 ms with time.sleep, 11 ms awaiting, 14 ms through to_thread"
    assert found[2] == "not measured yet: run lecture 2"
    assert {lecture for *_, lecture, _ in SITUATIONS} == {1, 2, 3, 4, 5, 6}
    keep(6, folder=tmp_path, free_threaded_x2=None)  # no free-threaded build on that machine
    texts = [text for situation, _choice, text, lecture in rows(load_all(tmp_path), lectures=[6])
             if situation.startswith("pure-Python threads")]
    assert texts == ["not measured by lecture 6 on this machine"]
    only_5 = decision_table(tmp_path, lectures=[5]).data
    assert "512 ms" in only_5 and "lecture 2" not in only_5


def test_run_file_reports_exit_code_output_and_distinct_error_lines():
    done = run_file("print('hello')\nraise RuntimeError('stop here')\n", name="fails.py")
    assert done.returncode == 1 and done.stdout == "hello\n"
    assert done.error_lines == ["RuntimeError: stop here"]
    assert repr(done).startswith("exit code 1\nhello\n  child said: RuntimeError: stop here")
    assert run_file("import helper\nprint(helper.X)", files={"helper.py": "X = 7"}).stdout == "7\n"


def test_loop_body_marks_the_read_the_write_and_the_hand_over_points():
    def add(n):
        global counter
        for _ in range(n):
            counter += 1

    marks = [mark for _op, _arg, mark in loop_body(add)]
    assert marks.index("read") < marks.index("write") < marks.index("hand-over point (3.10+)")


@pytest.mark.skipif(not PYENV_39, reason="no CPython 3.9 on this machine")
def test_loop_body_in_a_3_9_child_lists_its_own_instructions():
    source = "counter = 0\ndef add(n):\n    global counter\n    for _ in range(n):\n        counter += 1\n"
    ops = [op for op, _arg, _mark in loop_body_in(PYENV_39[-1], source, "add")]
    assert "INPLACE_ADD" in ops and "STORE_GLOBAL" in ops and ops[-1] == "JUMP_ABSOLUTE"


def test_slow_callbacks_collects_reports_and_restores_the_asyncio_logger():
    import asyncio
    import time

    async def blocks():
        time.sleep(0.15)
        await asyncio.sleep(0)

    logger = logging.getLogger("asyncio")
    before = (logger.handlers[:], logger.propagate, logger.level)
    assert len(slow_callbacks(blocks, 0.1)) == 1
    assert slow_callbacks(blocks, 1.0) == []
    assert (logger.handlers[:], logger.propagate, logger.level) == before


def test_lecture_helpers_read_real_magic_results_in_the_kernel(fresh_kernel):
    fresh_kernel.ok("from gillab.lectures import best_speedup, decision_table, keep, table\n"
                    "from gillab.lectures.races import interval_sweep, sweep_table")
    fresh_kernel.ok("%%gilbench --modes sequential,threads --workers 2 --jobs 2 --repeats 1 --warmup 0 -o waits\n"
                    "import time\ndef job(i):\n    time.sleep(0.05)\n    return i\n", timeout=120)
    assert float(fresh_kernel.eval("best_speedup(waits, 'threads', 2)")) > 1.3
    sweep = fresh_kernel.execute("s = interval_sweep(['1ms'], 2, 2000, 2)\nsweep_table(s)", timeout=120)
    assert sweep.status == "ok" and "text/markdown" in sweep.result_data()
    assert "| 1ms |" in sweep.result_data()["text/markdown"]
    fresh_kernel.ok("keep(4, worst_lost_percent=40.0, lock_lost=0, lock_cost=3.0, per_thread_cost=1.0)")
    shown = fresh_kernel.execute("decision_table(lectures=[4])")
    assert "up to 40% of updates lost" in shown.result_data()["text/markdown"]
    assert shown.stream("stderr") == ""


def test_loaded_blas_reads_the_mapped_library_and_names_its_threading(tmp_path):
    from gillab.lectures.numpy_threads import loaded_blas
    maps = tmp_path / "maps"
    maps.write_text("7f00-7f01 r-xp 0 08:01 1 /usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3\n"
                    "7f02-7f03 r-xp 0 08:01 2 /usr/lib/x86_64-linux-gnu/libc.so.6\n")
    path, kind = loaded_blas(str(maps))
    assert path.endswith("openblas-pthread/libblas.so.3") and kind.startswith("OpenBLAS")
    maps.write_text("7f02-7f03 r-xp 0 08:01 2 /usr/lib/x86_64-linux-gnu/libc.so.6\n")
    assert loaded_blas(str(maps))[0] is None


def test_numpy_jobs_compile_and_one_product_reports_its_cores():
    pytest.importorskip("numpy")
    from gillab.lectures.numpy_threads import blas_threads, jobs
    for name, source in jobs(1000, 2, 20).items():
        space = {}
        exec(source, space)
        assert isinstance(space["job"](0), float), name
    found = blas_threads(60)
    assert set(found) == {"defaults", "one thread"}
    assert all(0 < f["wall_s"] < 5 and f["cores"] > 0 for f in found.values()), found


def test_timeline_notes_in_order_and_finds_the_first_matching_entry():
    from gillab.lectures.timeline import Timeline
    timeline = Timeline()
    timeline.note("feed", "ready")
    timeline.note("page", "caught: prices")
    assert timeline.when("page", "caught") == timeline.entries[1][0] >= 0
    assert timeline.when("feed", "cancelled") is None
    assert repr(timeline).splitlines()[1].endswith("page     caught: prices")


def test_child_scripts_print_their_json_under_any_interpreter():
    from gillab.lectures.children import run_json
    loops = run_json("/usr/bin/python3", "tight_loops", 2000)
    assert set(loops) == {"additions", "calls"} and all(s > 0 for s in loops.values())
    back = run_json("/usr/bin/python3", "gil_back_on", gil="1")
    assert back["gil"] is True and back["speedup"] > 0 and back["version"].startswith("3.11")
    owned = run_json("/usr/bin/python3", "ownership", 2000)
    assert {"foreign_extra", "shared_speedup", "two_cores"} <= set(owned)


def test_run_json_says_in_one_line_why_a_child_gave_nothing(capsys):
    from gillab.lectures.children import run_json
    assert run_json("/usr/bin/python3", "no_such_script") is None
    printed = capsys.readouterr().out.strip().splitlines()
    assert len(printed) == 1 and printed[0].startswith("/usr/bin/python3 failed:")


def test_free_threading_finds_same_patch_builds_and_lays_out_published_rows():
    from gillab.lectures.free_threading import find_builds, ownership_table, single_thread_table

    class Found:
        interpreters = [{"version": "3.13.0", "executable": "/pyenv/3.13", "found_in": "pyenv"},
                        {"version": "3.13.5", "executable": "/cache/3.13", "found_in": "project build"},
                        {"version": "3.13.5", "executable": "/cache/3.13t", "found_in": "project build",
                         "free_threaded_build": True}]

    free, default, build = find_builds(Found())
    assert (free, default, build["version"]) == ("/cache/3.13t", "/cache/3.13", "3.13.5")

    class Nothing:
        interpreters = [{"version": "3.11.2", "executable": "/usr/bin/python3"}]

    assert find_builds(Nothing())[:2] == (None, None)
    shown = ownership_table({}).data
    assert "not measured here" in shown and "+15.4%" in shown and "x0.45-0.52" in shown
    cost = single_thread_table({"additions": {"default": 1.0, "free-threaded": 1.3}}, 1000).data
    assert "+30%" in cost and "+14% to +46%" in cost


def test_for_magic_builds_what_each_magic_shows_from_the_figures_file():
    gilbench = published.for_magic("gilbench")
    assert {"cpu", "io", "sleep", "zlib", "hashlib-small", "hashlib-large", "startup"} == set(gilbench)
    sleep = {(r["mode"], r["workers"], r["jobs"]): r for r in gilbench["sleep"]["rows"]}
    assert sleep[("threads", "8", 8)]["wall_s"] == 0.0511 and sleep[("threads", "8", 8)]["speedup"] == 7.86
    io = {(r["mode"], r["workers"], r["jobs"]): r for r in gilbench["io"]["rows"]}
    assert io[("threads", "per-job", 10000)]["peak_rss_mb"] == 90 and io[("threads", "default", 1000)]["wall_s"] == 8.684
    dial = published.for_magic("switchinterval")
    assert {"probe": "yield", "interval_s": 0.0005, "median_ms": 0.717} in dial["medians"]
    assert "6.52 / 1.52 / 0.52 ms late at 5 / 1 / 0.2 ms" in dial["sleep_note"] and dial["median_slice_ms"] == 5.127
    assert "510.1 ms, 5 ticks" in published.for_magic("heartbeat")["note"]
    race = published.for_magic("race")
    assert "1,492,419 / 2,606,045 / 2,137,778" in race["note"] and race["data"]["got_with_call_3_11"] == 2616204
    with pytest.raises(KeyError, match="no published figures for %gilinfo"):
        published.for_magic("gilinfo")


def test_each_long_c_call_keeps_the_native_probe_out_for_about_its_length(fresh_kernel):
    fresh_kernel.ok("from gillab.lectures.long_calls import measure, calls_table")
    fresh_kernel.ok("found = measure(n=300_000, k=18, m=50_000)", timeout=120)
    found = fresh_kernel.eval("found")
    assert len(found) == 5, found
    for label, f in found.items():
        # the probe waits through the call (it asks every 1 ms); a generous margin for a loaded machine
        assert f["max_gil_wait_ms"] >= 0.5 * f["call_ms"] - 2, (label, f)
    shown = fresh_kernel.execute("calls_table(found)")
    assert "sorted() of 300,000 floats" in shown.result_data()["text/markdown"]
    assert shown.stream("stderr") == ""
