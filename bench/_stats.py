"""Statistics shared by the benchmarks that compare two ways of running the same work."""

import math
import statistics


def median_interval(values):
    """The median and a distribution-free 95% confidence interval for it (ranks of the binomial)."""
    ordered = sorted(values)
    n = len(ordered)
    half = 0.98 * math.sqrt(n)  # 1.96 / 2 standard deviations of Binomial(n, 1/2)
    low = max(0, math.floor(n / 2 - half) - 1)
    high = min(n - 1, math.ceil(n / 2 + half))
    return statistics.median(ordered), ordered[low], ordered[high]
