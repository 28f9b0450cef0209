"""sized(): the full size unless the kernel's environment asks for short runs."""

from gillab.course import sized
from gillab.course.size import short_runs


def test_a_student_run_gets_the_full_size(monkeypatch):
    monkeypatch.delenv("GILLAB_QUICK", raising=False)
    assert not short_runs()
    assert sized(10_000, short=2_000) == 10_000


def test_gillab_quick_1_asks_for_the_short_size_and_nothing_else_does(monkeypatch):
    monkeypatch.setenv("GILLAB_QUICK", "1")
    assert sized("--repeats 5", short="--repeats 1") == "--repeats 1"
    monkeypatch.setenv("GILLAB_QUICK", "0")
    assert sized("--repeats 5", short="--repeats 1") == "--repeats 5"
