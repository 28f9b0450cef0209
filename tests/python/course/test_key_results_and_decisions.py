"""gillab.course.key_results and decisions: the key-results files and the decision table."""

import json

import pytest

from gillab.course import decision_table, keep, load_all
from gillab.course.decisions import SITUATIONS, rows


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
    found = {situation: text for situation, _choice, text, _lecture in rows(load_all(tmp_path))}
    assert found["one blocking call inside async code"] == \
        "loop stood still 512 ms with time.sleep, 11 ms awaiting, 14 ms through to_thread"
    assert found["several tasks that must fail together"] == "not measured by lecture 5 on this machine"
    assert found["starting worker processes at all"] == "not measured yet: run lecture 2"
    assert {spec[2] for spec in SITUATIONS} == {1, 2, 3, 4, 5, 6}
    keep(6, folder=tmp_path, free_threaded_x2=None)  # no free-threaded build on that machine
    texts = [text for situation, _choice, text, lecture in rows(load_all(tmp_path), lectures=[6])
             if situation.startswith("pure-Python threads")]
    assert texts == ["not measured by lecture 6 on this machine"]
    only_5 = decision_table(tmp_path, lectures=[5]).data
    assert "512 ms" in only_5 and "lecture 2" not in only_5


def test_a_row_says_when_the_students_own_figures_do_not_support_its_choice(tmp_path):
    keep(5, folder=tmp_path, blocked_gap_ms=512.0, awaited_gap_ms=11.0, offloaded_gap_ms=480.0,
         gather_feed_finished_s=0.6, task_group_cancelled_s=0.2)
    found = {situation: text for situation, _choice, text, _lecture in rows(load_all(tmp_path), lectures=[5])}
    assert "does not support this choice" in found["one blocking call inside async code"]
    assert "does not support" not in found["several tasks that must fail together"]
    assert "TaskGroup cancelled it at 0.20 s" in found["several tasks that must fail together"]
    keep(4, folder=tmp_path, worst_lost_percent=0.0, lock_lost=0, lock_cost=3.0, per_thread_cost=1.0)
    race_row = rows(load_all(tmp_path), lectures=[4])[0][2]
    assert "nothing was lost unlocked in this run, which proves nothing" in race_row


def test_the_waits_boundary_comes_from_the_students_lecture_3_run(tmp_path):
    figures = dict(waits=100, pool_workers=6, default_pool_s=1.8, per_job_s=0.11, asyncio_s=0.10, thousands=10_000,
                   thousands_threads_s=0.9, thousands_asyncio_s=0.2, thousands_threads_rss_mb=90.0,
                   thousands_asyncio_rss_mb=40.0)
    keep(3, folder=tmp_path, **figures)
    boundary = [r for r in rows(load_all(tmp_path)) if r[0] == "where hundreds of waits become thousands"]
    assert boundary[0][1] == "threads (one per wait) up to 100 waits; asyncio by 10,000"
    assert "4.5x at 10,000" in boundary[0][2]
    keep(3, folder=tmp_path, **dict(figures, thousands_threads_s=0.21, thousands_threads_rss_mb=41.0))
    boundary = [r for r in rows(load_all(tmp_path)) if r[0] == "where hundreds of waits become thousands"]
    assert boundary[0][1].startswith("threads still kept up at 10,000 waits here")


def test_new_rows_cover_task_groups_and_start_methods():
    situations = [spec[0] for spec in SITUATIONS]
    assert "several tasks that must fail together" in situations
    assert "starting worker processes at all" in situations


def test_the_dial_row_names_which_part_of_the_choice_the_run_contradicts(tmp_path):
    keep(6, folder=tmp_path, dial_p95_5ms_ms=30.0, dial_p95_small_ms=6.0, dial_rate_small=0.43)
    dial = [text for situation, _c, text, _l in rows(load_all(tmp_path), lectures=[6])
            if situation.startswith("one thread computes")][0]
    assert "the computing thread lost 57% of its rate" in dial
    keep(6, folder=tmp_path, dial_p95_5ms_ms=6.0, dial_p95_small_ms=6.5, dial_rate_small=1.0)
    dial = [text for situation, _c, text, _l in rows(load_all(tmp_path), lectures=[6])
            if situation.startswith("one thread computes")][0]
    assert "the shorter interval did not shorten the tail here" in dial


def test_a_thread_run_stopped_at_its_budget_is_a_lower_bound_not_a_missing_figure(tmp_path):
    keep(3, folder=tmp_path, waits=100, pool_workers=6, default_pool_s=1.8, per_job_s=0.11, asyncio_s=0.10,
         thousands=10_000, thousands_threads_s=15.0, thousands_threads_complete=False, thousands_asyncio_s=0.4,
         thousands_threads_rss_mb=68.0, thousands_asyncio_rss_mb=39.0)
    found = {situation: (choice, text) for situation, choice, text, _l in rows(load_all(tmp_path), lectures=[3])}
    assert "at least 37.5x at 10,000" in found["where hundreds of waits become thousands"][1]
    assert found["thousands of waits at once, async libraries all the way"][1].startswith("10,000 waits: asyncio 0.40 s")
    assert "threads at least 15.00 s" in found["thousands of waits at once, async libraries all the way"][1]
    assert not any("not measured" in text for _c, text in found.values())
