"""Cores that are true in a container: a kernel held to one CPU, by an affinity mask (taskset)
or by a cgroup CPU quota, says so in %gilinfo and in a %%gilbench result, with the reason."""

import os
import shutil

import jupyter_client
import pytest

from conftest import Kernel

V1_CPU = "/sys/fs/cgroup/cpu"
JOB = "def job(i):\n    return sum(range(2_000)) + i\n"


class WrappedKernelManager(jupyter_client.KernelManager):
    """Starts the kernel's command behind `prefix` (taskset, or a shell that joins a cgroup first)."""

    prefix = []

    def format_kernel_cmd(self, extra_arguments=None):
        return self.prefix + super().format_kernel_cmd(extra_arguments)


class WrappedKernel(Kernel):
    def __init__(self, prefix):
        self.log_path = None
        self.manager = WrappedKernelManager(kernel_name="gillab")
        self.manager.prefix = prefix
        self.manager.start_kernel()
        self.client = self.manager.client()
        self.client.start_channels()
        self.wait_for_ready()


def one_core_reported(kernel, reason):
    info = kernel.ok("%gilinfo -o info")
    text = info.result_data()["text/plain"]
    assert kernel.eval("info.usable_cpus") == 1
    assert kernel.eval("info.cores_limited_by") == reason
    assert kernel.eval("info.cpu_count") == os.cpu_count(), "the machine's count stays beside it"
    row = next(line for line in text.splitlines() if "cores usable" in line)
    assert " 1 " in f" {row} " and f"set by the {reason}" in row, row
    kernel.ok(f"%%gilbench --modes sequential,threads --workers default --jobs 2 --repeats 1 --warmup 0 -o bench\n{JOB}",
              timeout=120)
    assert kernel.eval("bench.cpu_count") == 1 and kernel.eval("bench.cores_limited_by") == reason
    assert kernel.eval("[r['workers'] for r in bench.runs if r['mode'] == 'threads']") == [5], \
        "the default thread pool is min(32, cores + 4)"
    notes = kernel.eval("repr(bench)")
    assert f"with 1 core usable (set by the {reason}" in notes, notes


@pytest.mark.skipif(not shutil.which("taskset"), reason="no taskset on this machine")
def test_a_kernel_under_taskset_to_one_cpu_reports_one_core_set_by_the_affinity_mask():
    kernel = WrappedKernel(["taskset", "-c", str(min(os.sched_getaffinity(0)))])
    try:
        one_core_reported(kernel, "affinity mask")
    finally:
        kernel.shutdown()


@pytest.fixture
def one_cpu_cgroup():
    """A v1 cpu cgroup allowing 1 CPU (100 ms per 100 ms), removed after the test."""
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU already: a quota of one CPU would not be what limits the kernel")
    folder = os.path.join(V1_CPU, f"gillab-test-{os.getpid()}")
    try:
        os.mkdir(folder)
        with open(os.path.join(folder, "cpu.cfs_period_us"), "w") as f:
            f.write("100000")
        with open(os.path.join(folder, "cpu.cfs_quota_us"), "w") as f:
            f.write("100000")
    except OSError as error:
        if os.path.isdir(folder):
            os.rmdir(folder)
        pytest.skip(f"no v1 cpu cgroup can be made here ({V1_CPU}: {error.strerror})")
    yield folder
    os.rmdir(folder)


def test_a_kernel_under_a_one_cpu_cgroup_quota_reports_one_core_set_by_the_quota(one_cpu_cgroup):
    join = ["/bin/sh", "-c", f'echo $$ > {one_cpu_cgroup}/cgroup.procs && exec "$@"', "sh"]
    kernel = WrappedKernel(join)
    try:
        one_core_reported(kernel, "cgroup CPU quota")
        assert kernel.eval("info.quota_cpus") == 1.0
        assert one_cpu_cgroup in kernel.eval("info.cores_why")
    finally:
        kernel.shutdown()
