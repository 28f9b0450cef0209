"""The magics' result objects (gillab.results) over records a real kernel answered with
(records/*.json, written by records/record.py): every accessor reads its figure from the record,
`python=` picks an interpreter the same way in every class, nothing to report is an empty answer,
and `help()` and `dir()` show every accessor. No kernel runs here."""

import inspect
import json
import os
import pydoc

import pytest

from gillab import results

RECORDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "records")


def loaded(name):
    with open(os.path.join(RECORDS, name + ".json")) as file:
        return results.result_for(json.load(file))


def accessors(cls):
    return [name for name, _ in inspect.getmembers(cls) if not name.startswith("_")]


@pytest.mark.parametrize("name, cls", [("gilinfo", results.Result), ("gilbench", results.GilbenchResult),
                                       ("race", results.RaceResult), ("switchinterval", results.SwitchintervalResult),
                                       ("heartbeat", results.HeartbeatResult), ("gilwatch", results.GilwatchResult),
                                       ("gilwatch_exact", results.GilwatchExactResult)])
def test_each_magic_s_record_becomes_its_own_class(name, cls):
    result = loaded(name)
    assert type(result) is cls
    assert result.magic == name
    assert result.rows and isinstance(result.rows[0], dict)


@pytest.mark.parametrize("cls", [results.Result, *results.CLASSES.values()])
def test_help_documents_every_accessor(cls):
    page = pydoc.render_doc(cls, renderer=pydoc.plaintext)
    assert inspect.getdoc(cls)
    for name in accessors(cls):
        doc = inspect.getdoc(getattr(cls, name))
        assert doc, f"{cls.__name__}.{name} has no docstring"
        assert name in page and doc.splitlines()[0] in page


@pytest.mark.parametrize("name", ["gilinfo", *results.CLASSES])
def test_dir_lists_every_accessor_and_every_field(name):
    result = loaded(name)
    listed = dir(result)
    assert set(accessors(type(result))) <= set(listed)
    assert set(result.to_dict()["data"]) <= set(listed)


def test_fields_are_attributes_and_an_unknown_one_names_the_fields():
    info = loaded("gilinfo")
    assert info.gil_enabled is True and info.switch_interval_ms > 0
    with pytest.raises(AttributeError, match="its fields: .*switch_interval_ms"):
        info.no_such_field


def test_to_dict_gives_the_record_back_and_a_change_to_it_leaves_the_result_alone():
    bench = loaded("gilbench")
    record = bench.to_dict()
    assert record["schema"] == "gillab.result" and record["magic"] == "gilbench"
    record["data"]["runs"].clear()
    bench.runs.clear()
    assert bench.wall("threads", 2) > 0


def test_a_loaded_result_shows_what_it_is_without_the_native_module():
    bench = loaded("gilbench")
    assert "GilbenchResult" in repr(bench) and "loaded" in repr(bench)
    data, metadata = bench._repr_mimebundle_()
    assert data["text/plain"] == repr(bench) and metadata == {}


def test_gilbench_lookups_read_the_run_of_the_configuration():
    bench = loaded("gilbench")
    for run in bench.runs:
        python = run["requested"]
        workers = run["workers"]
        assert bench.run(run["mode"], workers, python=python) == run
        if run["wall_s"] is not None:
            assert bench.wall(run["mode"], workers, python=python) == run["wall_s"]["median"]
            assert bench.cpu(run["mode"], workers, python=python) == run["cpu_s"]["median"]
        assert bench.speedup(run["mode"], workers, python=python) == run["speedup"]
        assert bench.peak_rss_mib(run["mode"], workers, python=python) is None  # no --memory
    assert bench.speedup("sequential") == pytest.approx(1.0)
    assert bench.wall("threads", 2, jobs=4) == bench.wall("threads", 2)


def test_gilbench_best_is_the_fastest_configuration_of_one_interpreter():
    bench = loaded("gilbench")
    mode, workers = bench.best()
    fastest = min(run["wall_s"]["median"] for run in bench.runs if run["interpreter_index"] == 0)
    assert bench.wall(mode, workers) == fastest


def test_python_picks_an_interpreter_as_it_was_requested_or_by_its_label_in_every_class():
    for name, figure in [("gilbench", lambda r, p: r.wall("threads", 2, python=p)),
                         ("race", lambda r, p: r.wall("unlocked", python=p)),
                         ("switchinterval", lambda r, p: r.median("5ms", python=p))]:
        result = loaded(name)
        first, other = result.interpreters
        assert figure(result, None) == figure(result, "kernel") == figure(result, first["python"])
        assert figure(result, other["requested"]) == figure(result, other["python"])
        with pytest.raises(KeyError, match="measured: kernel, /usr/bin/python3"):
            figure(result, "3.6")


def test_a_configuration_that_was_not_measured_is_a_key_error_naming_it():
    with pytest.raises(KeyError, match="no run for mode 'processes' with 2 workers"):
        loaded("gilbench").wall("processes", 2)
    with pytest.raises(KeyError, match="mode 'batch' was not measured; measured: "):
        loaded("race").lost("batch")
    with pytest.raises(KeyError, match="no measurement at 0.2 ms"):
        loaded("switchinterval").median("0.2ms")


def test_race_lookups_read_the_mode_s_summary():
    race = loaded("race")
    summary = race.interpreters[0]["summary"]
    assert race.lost() == summary["unlocked"]["lost_median"]
    assert isinstance(race.lost("lock"), int) and race.lost("lock") == 0
    assert race.lost_percent("unlocked") == summary["unlocked"]["lost_percent_median"]
    assert race.cost() == summary["lock"]["x_unlocked"]
    assert race.run("lock")["lost_runs"] == [0, 0]


def test_switchinterval_takes_an_interval_as_typed_or_in_seconds():
    sweep = loaded("switchinterval")
    assert sweep.median("5ms") == sweep.median(0.005) == sweep.run("5ms")["median_ms"]
    assert sweep.p95("1ms") >= sweep.median("1ms")
    assert sweep.worst("1ms") >= sweep.p95("1ms")
    with pytest.raises(ValueError, match="bad duration 'soon'"):
        sweep.median("soon")


def test_a_timeline_has_slices_and_lanes_and_is_the_kernel_s_only():
    timeline = loaded("switchinterval_timeline")
    slices = timeline.slices("5ms")
    assert slices and all(length >= 0 for length in slices)
    assert {"lane", "segments", "held_ms"} <= set(timeline.lanes("5ms")[0])
    with pytest.raises(KeyError, match="kernel only"):
        timeline.slices("5ms", python="3.13")


def test_heartbeat_series_are_the_record_s_and_empty_where_nothing_was_measured():
    heartbeat = loaded("heartbeat")
    assert heartbeat.gaps() == heartbeat.gaps_ms and heartbeat.gaps()
    assert heartbeat.gil_waits() == heartbeat.gil["waits_ms"]
    assert isinstance(heartbeat.blame(), list)
    started = results.HeartbeatResult.from_dict({**heartbeat.to_dict(), "data": {"mode": "started", "every_ms": 10}})
    assert started.gaps() == [] and started.gil_waits() == [] and started.blame() == []


def test_gilwatch_sums_the_threads_of_a_name_and_finds_one_by_its_ident():
    watch = loaded("gilwatch")
    spinner = next(t for t in watch.threads if t["name"] == "spinner")
    assert watch.held_share("spinner") == spinner["held_share"] == watch.held_share(spinner["ident"])
    assert watch.turns("spinner") == spinner["turns"]
    segments = watch.segments("spinner")
    assert segments == sorted(segments, key=lambda s: s["start_ms"]) and segments
    with pytest.raises(KeyError, match="no thread 'nobody' in this watch; threads: .*spinner"):
        watch.held_share("nobody")


def test_gilwatch_blame_of_a_thread_that_never_waited_is_empty():
    watch = loaded("gilwatch")
    record = watch.to_dict()
    main = next(t["ident"] for t in record["data"]["threads"] if t["name"] == "MainThread")
    record["data"]["blame"] = [waiter for waiter in record["data"]["blame"] if waiter["ident"] != main]
    assert results.GilwatchResult.from_dict(record).blame("MainThread") == []
    assert watch.blame("MainThread")  # it did wait in the run recorded
    lines = watch.blame("spinner")
    assert [line["seconds"] for line in lines] == sorted((line["seconds"] for line in lines), reverse=True)


def test_gilwatch_exact_waits_are_picked_by_thread_and_kind_and_their_parts_add_up():
    exact = loaded("gilwatch_exact")
    everyone = exact.waits()
    assert len(everyone) == exact.handovers == exact.forced + exact.voluntary
    spinner = exact.waits("spinner")
    assert spinner and all(wait["taker"] == "spinner" for wait in spinner)
    assert exact.waits("spinner", forced=True) + exact.waits("spinner", forced=False) != []
    assert len(exact.waits(forced=True)) == exact.forced
    parts = exact.parts()
    assert parts["interval"] + parts["holder"] + parts["wake"] + parts["take"] == pytest.approx(parts["wait"])
    with pytest.raises(KeyError, match="without --exact"):
        exact.blame("spinner")
    with pytest.raises(KeyError, match="threads: "):
        exact.waits("nobody")
