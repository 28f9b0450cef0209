"""gillab.course.predictions: the student's guess beside the measurement and the published figure."""

from gillab.course import compare


def test_compare_says_when_no_guess_was_written_and_judges_a_guess():
    assert "You wrote no guess" in compare("x", None, 1.0).sentence()
    close = compare("threads", 1.1, 1.0, 0.99, figure="thread_scaling_cpu")
    assert close.close and "was close" in close.sentence() and "published 0.99x (3.13.2, 12 cores)" in close.sentence()
    high = compare("threads", 4.0, 1.0)
    assert high.close is False and "too high" in high.sentence()
    assert "too low" in compare("gap", 10, 500, unit="ms").sentence()
    assert compare("lost", 30.0, 34.0, unit="%", tolerance=0.05).close  # within 5 points
