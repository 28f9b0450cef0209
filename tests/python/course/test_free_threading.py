"""gillab.course.free_threading: the builds and the tables of lecture 6's comparisons."""


def test_free_threading_finds_same_patch_builds_and_lays_out_published_rows():
    from gillab.course.free_threading import find_builds, ownership_table, single_thread_table

    class Found:
        interpreters = [{"version": "3.13.0", "executable": "/pyenv/3.13", "origin": "pyenv"},
                        {"version": "3.13.5", "executable": "/cache/3.13", "origin": "project_build"},
                        {"version": "3.13.5", "executable": "/cache/3.13t", "origin": "project_build",
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


class Sweep:
    """A stand-in with the accessors of a --python %switchinterval / %gilbench / %%race result."""
    expected = 1000

    def median(self, interval, python):
        return {"/ft": 0.06}.get(python, 5.0)

    def p95(self, interval, python):
        return {"/ft": 0.08}.get(python, 6.0)

    def wall(self, mode, workers=1, python=None):
        return {"sequential": 0.4}.get(mode, 0.05)

    def run(self, mode, python):
        return {"mode": mode, "lost_runs": [0, 0] if mode == "lock" or python == "/d" else [120, 80]}


def test_free_threading_tables_lay_out_each_build_beside_the_published_rows():
    from gillab.course.free_threading import builds, race_lines, sharing_note, turns, turns_table, waiting_table
    assert [b[0] for b in builds("/d", "/ft")] == ["default build", "free-threaded", "free-threaded, PYTHON_GIL=1"]
    assert builds(None, None) == []
    found = turns(Sweep(), "/d", "/ft")
    assert found["free-threaded"]["5ms"] == {"median_ms": 0.06, "p95_ms": 0.08}
    shown = turns_table(found).data
    assert "5.279 ms" in shown and "about 0.067 ms" in shown and "0.060 ms (0.080)" in shown
    assert "its column is the published one" in turns_table(turns(Sweep(), None, None)).data
    waiting = waiting_table(Sweep(), Sweep(), "/d", "/ft").data
    assert "| free-threaded | 8.00 | 16.00 |" in waiting and "7.74" in waiting
    lines = race_lines(Sweep(), "/d", "/ft").splitlines()
    assert "without a lock lost 120 / 80 of 1,000" in lines[1] and "with a lock 0 / 0" in lines[1]
    assert race_lines(Sweep(), None, None).startswith("No free-threaded build here")
    assert sharing_note({"free-threaded": {"two_cores": 1.9}}) == ""
    assert "Busy machine" in sharing_note({"free-threaded": {"two_cores": 0.6}})


def test_build_marks_table_asks_each_interpreter_about_itself():
    from gillab.course.free_threading import build_marks_table

    class Found:
        interpreters = [{"version": "3.11.2", "executable": "/usr/bin/python3"}, {"version": "2.7", "executable": "/x"}]

    shown = build_marks_table(Found()).data
    assert "| /usr/bin/python3 | 3.11.2 | 0.005 | '' |  | True |" in shown and "/x" not in shown


def test_shared_objects_runs_in_this_interpreter_and_says_which_counts_were_exact():
    from gillab.course import free_threading as ft

    found = ft.shared_objects([], 20_000)
    (label, got), = found
    assert label == "this kernel" and got["expected"] == 80_000 and got["appended"] == 80_000
    assert "this kernel: every count exact." in ft.shared_objects_sentences(found)
    assert "80,000" in ft.shared_objects_table(found).data
    broken = [("free-threaded", dict(got, updated=61_000, taken=80_003, distinct=80_000))]
    assert ft.shared_objects_sentences(broken) == \
        "free-threaded: exact except the read-and-write-back, the shared iterator."
