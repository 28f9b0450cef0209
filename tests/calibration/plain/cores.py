"""Plain reference for %gilinfo's usable cores: the affinity mask, lowered by the CPU quota of
this process's cgroups (v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us) read directly.
Standard library only; `python3 cores.py` prints the count."""

import math
import os


def _quotas():
    for line in open("/proc/self/cgroup"):
        _, controllers, path = line.rstrip("\n").split(":", 2)
        if controllers == "":
            candidates = [("/sys/fs/cgroup" + path, "cpu.max"), ("/sys/fs/cgroup/unified" + path, "cpu.max")]
        elif "cpu" in controllers.split(","):
            candidates = [("/sys/fs/cgroup/" + controllers + path, "cpu.cfs_quota_us")]
        else:
            continue
        for folder, name in candidates:
            while folder.startswith("/sys/fs/cgroup"):
                try:
                    if name == "cpu.max":
                        quota, period = open(os.path.join(folder, name)).read().split()
                    else:
                        quota = open(os.path.join(folder, name)).read().strip()
                        period = open(os.path.join(folder, "cpu.cfs_period_us")).read().strip()
                except (OSError, ValueError):
                    break
                if quota not in ("max", "-1"):
                    yield int(quota) / int(period)
                folder = os.path.dirname(folder)


def usable_cores():
    cores = len(os.sched_getaffinity(0))
    for quota in _quotas():
        cores = min(cores, max(1, math.ceil(quota)))
    return cores


if __name__ == "__main__":
    print(usable_cores())
