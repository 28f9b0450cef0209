"""make calibrate: every case at full size in one kernel, then the table for docs/benchmarks.md.
Usage: calibrate.py [--size test|full] [--pairs N] [--only SUBSTRING]"""

import argparse
import datetime
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import cases  # noqa: E402
from conftest import Kernel  # noqa: E402
import harness  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", default="full", choices=["test", "full"])
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    chosen = [c for c in cases.all_cases(args.size) if args.only in c.name]
    kernel = Kernel()
    outcomes = []
    try:
        for case in chosen:
            outcome = harness.measure(kernel, case, args.pairs)
            outcomes.append(outcome)
            print(harness.table([outcome]).splitlines()[-1], flush=True)
    finally:
        kernel.shutdown()
    load = open("/proc/loadavg").read().split()[:3]
    print("\n%s, %s, %d CPUs, load average %s (1/5/15 min)\n" % (
        datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"), platform.platform(), os.cpu_count(), " ".join(load)))
    print(harness.table(outcomes))


if __name__ == "__main__":
    main()
