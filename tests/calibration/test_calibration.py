"""Every magic's figure agrees with the plain script of the same design (plain/), measured in
the same kernel, interleaved: at make test's small size, the pairs' median ratio (for the ±20%
rows, the ratio of the two sides' medians) stays within each case's margin, which a loaded 2-core
machine keeps. `make calibrate` runs the full size and prints the table docs/benchmarks.md quotes."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cases  # noqa: E402
import harness  # noqa: E402

PAIRS = 5


@pytest.mark.parametrize("case", cases.all_cases("test"), ids=lambda c: c.name)
def test_the_magic_agrees_with_its_plain_reference(kernel, case):
    outcome = harness.measure(kernel, case, PAIRS)
    ratio = outcome.ratio_of_medians() if case.noisy else outcome.ratio()
    assert 1 / case.margin <= ratio <= case.margin, harness.table([outcome])


def test_gilwatch_turns_equal_the_spinners_own_count_of_the_same_run(kernel):
    """Beside the paired row, the same run's own count: each spinner counts a turn when it finds
    the other ran since its last round, so the sampled turns should match it turn for turn."""
    kernel.ok(harness.setup_cell())
    kernel.ok("%%gilwatch -o _calib\n" + cases.COUNTING_CELL % "0.5", timeout=60)
    for name in ("spin-0", "spin-1"):
        sampled, counted = kernel.eval("(_calib.turns(%r), _turns[%r])" % (name, name))
        assert counted > 5 and abs(sampled - counted) <= 2 + 0.1 * counted, (name, sampled, counted)
    assert kernel.eval("_calib.handovers") >= kernel.eval("sum(_turns.values())") - 1  # the exact count covers every turn
