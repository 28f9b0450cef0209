"""gillab.lectures.free_threading: the builds and the tables of lecture 6's comparisons."""




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
