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
