"""gillab.course.published: the course's published figures (published.json) and what each magic shows from them."""

import pytest

from gillab.course import published


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


def test_the_two_thread_python_ratio_is_the_split_design_not_a_weak_scaling_figure():
    ratio, split = published.figure("python_two_threads"), published.figure("split_design")
    assert ratio["design"] == "split_design" and "weak" not in ratio["what"]
    assert round(split["one_thread_s"] / split["two_threads_s"], 2) == ratio["gil_speedup"]


def test_an_unknown_published_figure_is_a_key_error_listing_the_known_ones():
    with pytest.raises(KeyError, match="no published figure 'nope'; known: switch_interval"):
        published.figure("nope")


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
    assert dial["timeline_note"].startswith("published: median turn 5.127 ms at 5 ms with one 10.3 ms double turn")
    assert "510.1 ms, 5 ticks" in published.for_magic("heartbeat")["note"]
    race = published.for_magic("race")
    assert "1,492,419 / 2,606,045 / 2,137,778" in race["note"] and race["data"]["got_with_call_3_11"] == 2616204
    with pytest.raises(KeyError, match="no published figures for %gilinfo"):
        published.for_magic("gilinfo")
