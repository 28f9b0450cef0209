"""One calibration case in one kernel: the magic's figure and its plain reference's, measured in
pairs that alternate which goes first, and their ratio (magic / reference): the median of the
pairs' ratios, with a 95% bootstrap interval. The median, as one run of a design can land in
another regime than its neighbours (a yielding probe that runs free on a loaded machine)."""

import os
import random
import statistics
from dataclasses import dataclass, field

PLAIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "plain")

BOOTSTRAP = 2000


@dataclass
class Case:
    name: str            # the row: magic and mode
    reference: str       # what it is held to, in words
    magic_cells: list    # cells run in order; the last one's value is the figure
    reference_cell: str  # its value is the reference's figure
    unit: str
    margin: float = 2.0  # make test: the median ratio lies within [1/margin, margin]
    noisy: bool = False  # the ±20% rows (their own spread is wider; the table says why)
    timeout: float = 300


@dataclass
class Outcome:
    case: Case
    magic: list = field(default_factory=list)
    reference: list = field(default_factory=list)

    @property
    def ratios(self):
        return [m / r if r else float("inf") for m, r in zip(self.magic, self.reference)]

    def ratio(self):
        return statistics.median(self.ratios)

    def ratio_of_medians(self):
        """For the ±20% rows, whose runs land in one regime or another regardless of their pair
        partner's (an OS wake-up, a forced switch): pairing them only draws two regimes at random."""
        return statistics.median(self.magic) / statistics.median(self.reference)

    def interval(self):
        """The 2.5th and 97.5th percentiles of the median ratio over resampled pairs (seeded)."""
        draw = random.Random(0)
        ratios = self.ratios
        medians = sorted(statistics.median(draw.choices(ratios, k=len(ratios))) for _ in range(BOOTSTRAP))
        return medians[int(0.025 * BOOTSTRAP)], medians[int(0.975 * BOOTSTRAP) - 1]


def setup_cell():
    return "import sys\nsys.path.insert(0, %r)\nimport cores, jobs, pools, probes, race, heartbeat, gilwatch\n" % PLAIN


def _figure(kernel, cells, timeout):
    for cell in cells[:-1]:
        kernel.ok(cell, timeout=timeout)
    value = kernel.eval(cells[-1], timeout=timeout)
    if value is None:
        raise AssertionError("no figure from %r" % cells[-1])
    return float(value)


def measure(kernel, case, pairs):
    kernel.ok(setup_cell())
    outcome = Outcome(case)
    for k in range(pairs):
        if k % 2 == 0:
            outcome.magic.append(_figure(kernel, case.magic_cells, case.timeout))
            outcome.reference.append(_figure(kernel, [case.reference_cell], case.timeout))
        else:
            outcome.reference.append(_figure(kernel, [case.reference_cell], case.timeout))
            outcome.magic.append(_figure(kernel, case.magic_cells, case.timeout))
    return outcome


def table(outcomes):
    lines = ["| magic | reference | magic (median) | reference (median) | ratio | 95% interval | pairs |",
             "|---|---|---|---|---|---|---|"]
    for o in outcomes:
        low, high = o.interval()
        lines.append("| %s | %s | %.4g %s | %.4g %s | %.3f | %.3f - %.3f | %d |" % (
            o.case.name + (" (±20%)" if o.case.noisy else ""), o.case.reference,
            statistics.median(o.magic), o.case.unit, statistics.median(o.reference), o.case.unit,
            o.ratio(), low, high, len(o.magic)))
    return "\n".join(lines)
