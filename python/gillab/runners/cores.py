"""How many cores this process can really use, and what set that number.

os.cpu_count() counts the machine's CPUs; a container limited to one CPU still sees the node's 64.
The true figure is the smallest of the affinity mask (taskset, sched_setaffinity) and the CPU
quota of the process's cgroup (v2 `cpu.max`, v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`, in this
cgroup or any cgroup above it). Standard library only, CPython 3.8+: child interpreters use it too.
"""

import math
import os

CGROUP_ROOT = "/sys/fs/cgroup"
PROC_CGROUP = "/proc/self/cgroup"
V2_MOUNTS = ("", "unified")  # unified: where a hybrid (v1 + v2) machine mounts v2
V1_CPU_MOUNTS = ("cpu", "cpu,cpuacct", "cpuacct,cpu")


def quota_cpus(quota, period):
    """CPUs a quota of `quota` microseconds per `period` allows (1.5 for 150000 / 100000), None for no limit."""
    if quota <= 0 or period <= 0:
        return None
    return quota / period


def parse_cpu_max(text):
    """cgroup v2 `cpu.max` ("150000 100000", or "max 100000" for no limit) as CPUs, or None."""
    fields = text.split()
    if not fields or fields[0] == "max":
        return None
    return quota_cpus(int(fields[0]), int(fields[1]) if len(fields) > 1 else 100000)


def parse_cfs(quota_text, period_text):
    """cgroup v1 `cpu.cfs_quota_us` ("-1" for no limit) and `cpu.cfs_period_us` as CPUs, or None."""
    return quota_cpus(int(quota_text.strip()), int(period_text.strip()))


def parse_proc_cgroup(text):
    """{controller: cgroup path} from /proc/self/cgroup; v2's unified hierarchy ("0::/path") under ""."""
    paths = {}
    for line in text.splitlines():
        parts = line.strip().split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(",") if parts[1] else [""]:
                paths[controller] = parts[2]
    return paths


def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def _folders(mount, path):
    """The cgroup's folder under `mount` and every folder above it up to the mount. Inside a
    container the mount is often the cgroup itself while /proc still names the host's path."""
    parts = [p for p in path.split("/") if p]
    return [os.path.join(mount, *parts[:n]) for n in range(len(parts), -1, -1)]


def _quota_v2(root, path):
    for name in V2_MOUNTS:
        for folder in _folders(os.path.join(root, name), path):
            text = _read(os.path.join(folder, "cpu.max"))
            if text is not None:
                yield parse_cpu_max(text), os.path.join(folder, "cpu.max")


def _quota_v1(root, path):
    for name in V1_CPU_MOUNTS:
        for folder in _folders(os.path.join(root, name), path):
            quota, period = (_read(os.path.join(folder, f)) for f in ("cpu.cfs_quota_us", "cpu.cfs_period_us"))
            if quota is not None and period is not None:
                yield parse_cfs(quota, period), os.path.join(folder, "cpu.cfs_quota_us")


def cgroup_quota(root=CGROUP_ROOT, proc_cgroup=PROC_CGROUP):
    """(CPUs, file) of the tightest cgroup CPU quota on this process, or (None, None) without one."""
    paths = parse_proc_cgroup(_read(proc_cgroup) or "")
    found = []
    if "" in paths:
        found += _quota_v2(root, paths[""])
    if "cpu" in paths:
        found += _quota_v1(root, paths["cpu"])
    limits = [(cpus, where) for cpus, where in found if cpus is not None]
    return min(limits) if limits else (None, None)


def _affinity():
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def usable_cores(root=CGROUP_ROOT, proc_cgroup=PROC_CGROUP):
    """{cores, limited_by, why, affinity_cpus, quota_cpus, machine_cpus}: the cores this process can
    keep busy at once (a fractional quota rounds up: 1.5 CPUs keep two threads running part-time),
    "limited_by" one of "cgroup CPU quota", "affinity mask", "machine", and "why" that as a phrase."""
    machine = os.cpu_count() or 1
    affinity = _affinity()
    quota, where = cgroup_quota(root, proc_cgroup)
    quota_cores = max(1, math.ceil(quota)) if quota is not None else None
    if quota_cores is not None and quota_cores <= affinity:
        cores, limited_by = quota_cores, "cgroup CPU quota"
        why = "the cgroup CPU quota (%s: %g CPU%s)" % (where, quota, "" if quota == 1 else "s")
    elif affinity < machine:
        cores, limited_by = affinity, "affinity mask"
        why = "the affinity mask (%d of the machine's %d CPUs)" % (affinity, machine)
    else:
        cores, limited_by = machine, "machine"
        why = "the machine's CPUs (no affinity mask or cgroup CPU quota below them)"
    return {"cores": cores, "limited_by": limited_by, "why": why, "affinity_cpus": affinity,
            "quota_cpus": quota, "machine_cpus": machine}
