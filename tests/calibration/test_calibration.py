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
