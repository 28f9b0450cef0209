"""gillab.course.predictions: the student's guess beside the measurement and the published figure."""

from gillab.course import calibration, compare


def test_compare_says_when_no_guess_was_written_and_judges_a_guess():
    close = compare("threads", 1.1, 1.0, 0.99, figure="thread_scaling_cpu")
    assert close.close and "was close" in close.sentence() and "published 0.99x (3.13.2, 12 cores)" in close.sentence()
    high = compare("threads", 4.0, 1.0)
    assert high.close is False and "too high" in high.sentence()
    assert "too low" in compare("gap", 10, 500, unit="ms").sentence()
    assert compare("lost", 30.0, 34.0, unit="%", tolerance=0.05).close  # within 5 points


def test_compare_without_a_guess_says_so_in_one_line_and_still_shows_both_figures():
    unguessed = compare("8 sleeps in 8 threads", None, 7.5, 7.86, figure="sleeps")
    line = unguessed.sentence()
    assert unguessed.close is None
    assert "\n" not in line and "No guess was set" in line
    assert "measured here 7.50x" in line and "published 7.86x" in line
    assert "\n" not in unguessed._repr_markdown_() and "7.86x" in repr(unguessed)


def test_compare_echoes_the_reason_given_with_the_guess():
    shown = compare("an echoed reason", 2.0, 1.0, reason="threads take turns at one lock")
    assert "Your reason: threads take turns at one lock" in shown.sentence()
    assert "no reason" in compare("an echoed reason", 2.0, 1.0).sentence()


def test_calibration_lists_each_comparison_once_with_how_far_the_guess_was():
    compare("calibrated ratio", 3.0, 1.5, reason="two cores")
    compare("calibrated ratio", 3.0, 2.0, reason="two cores, again")  # the cell run again replaces its row
    compare("calibrated percent", 40.0, 25.0, unit="%")
    text = calibration().data
    assert text.count("calibrated ratio") == 1 and "x1.50 of the measurement" in text and "two cores, again" in text
    assert "+15.0 points" in text


def test_compare_with_nothing_measured_says_so_instead_of_failing():
    # A sweep interval whose probe got no turn has no median: the comparison must still display.
    empty = compare("an interval without a sample", 4.0, None, 6.52, unit="ms", reason="one interval")
    line = empty.sentence()
    assert empty.close is None and "measured here nothing" in line and "published 6.52 ms" in line
    assert "run it again" in line and "too high" not in line
    assert "not measured" in calibration().data
