"""gillab.course.timeline: lecture 5's record of tasks."""


def test_timeline_notes_in_order_and_finds_the_first_matching_entry():
    from gillab.course.timeline import Timeline
    timeline = Timeline()
    timeline.note("feed", "ready")
    timeline.note("page", "caught: prices")
    assert timeline.when("page", "caught") == timeline.entries[1][0] >= 0
    assert timeline.when("feed", "cancelled") is None
    assert repr(timeline).splitlines()[1].endswith("page     caught: prices")
