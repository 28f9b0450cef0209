"""gillab.runners.cores: the cgroup files read as a CPU quota, and the fewest of affinity and quota."""

import os

import pytest

from gillab.runners import cores


@pytest.mark.parametrize("text, cpus", [("max 100000\n", None), ("100000 100000\n", 1.0), ("150000 100000", 1.5),
                                        ("50000 100000\n", 0.5), ("200000", 2.0), ("", None)])
def test_cpu_max_reads_as_the_cpus_its_quota_allows(text, cpus):
    assert cores.parse_cpu_max(text) == cpus


@pytest.mark.parametrize("quota, period, cpus", [("-1\n", "100000\n", None), ("100000\n", "100000\n", 1.0),
                                                 ("250000", "100000", 2.5), ("0", "100000", None)])
def test_cfs_quota_and_period_read_as_cpus(quota, period, cpus):
    assert cores.parse_cfs(quota, period) == cpus


def test_proc_cgroup_names_each_controllers_path_and_v2_under_the_empty_name():
    text = "12:cpu,cpuacct:/kubepods/pod1/c1\n4:memory:/kubepods/pod1/c1\n0::/user.slice/session-1.scope\n"
    paths = cores.parse_proc_cgroup(text)
    assert paths["cpu"] == paths["cpuacct"] == "/kubepods/pod1/c1"
    assert paths[""] == "/user.slice/session-1.scope"


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def test_a_v2_quota_above_the_processs_own_cgroup_still_limits_it(tmp_path):
    write(str(tmp_path / "proc"), "0::/pod/box\n")
    write(str(tmp_path / "root" / "pod" / "cpu.max"), "100000 100000\n")
    write(str(tmp_path / "root" / "pod" / "box" / "cpu.max"), "max 100000\n")
    cpus, where = cores.cgroup_quota(str(tmp_path / "root"), str(tmp_path / "proc"))
    assert cpus == 1.0 and where == str(tmp_path / "root" / "pod" / "cpu.max")


def test_a_v1_quota_is_found_in_the_cpu_controllers_folder(tmp_path):
    write(str(tmp_path / "proc"), "3:cpu,cpuacct:/grading/one\n0::/\n")
    folder = tmp_path / "root" / "cpu,cpuacct" / "grading" / "one"
    write(str(folder / "cpu.cfs_quota_us"), "150000\n")
    write(str(folder / "cpu.cfs_period_us"), "100000\n")
    assert cores.cgroup_quota(str(tmp_path / "root"), str(tmp_path / "proc")) == (1.5, str(folder / "cpu.cfs_quota_us"))


def test_no_cgroup_files_means_no_quota(tmp_path):
    write(str(tmp_path / "proc"), "0::/\n")
    assert cores.cgroup_quota(str(tmp_path / "root"), str(tmp_path / "proc")) == (None, None)


def test_a_quota_below_the_affinity_mask_sets_the_cores_and_says_so(tmp_path):
    write(str(tmp_path / "proc"), "0::/box\n")
    write(str(tmp_path / "root" / "unified" / "box" / "cpu.max"), "50000 100000\n")
    found = cores.usable_cores(str(tmp_path / "root"), str(tmp_path / "proc"))
    assert found["cores"] == 1 and found["limited_by"] == "cgroup CPU quota" and found["quota_cpus"] == 0.5
    assert found["why"].startswith("the cgroup CPU quota (") and "cpu.max: 0.5 CPUs" in found["why"]


def test_without_a_quota_the_affinity_mask_or_the_machine_sets_the_cores(tmp_path):
    write(str(tmp_path / "proc"), "0::/\n")
    found = cores.usable_cores(str(tmp_path / "root"), str(tmp_path / "proc"))
    affinity = len(os.sched_getaffinity(0))
    assert found["cores"] == affinity == found["affinity_cpus"] and found["quota_cpus"] is None
    assert found["limited_by"] == ("affinity mask" if affinity < os.cpu_count() else "machine")
