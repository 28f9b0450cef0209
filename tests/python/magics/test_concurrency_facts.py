import multiprocessing
import os
import sys

from gillab.magics import concurrency_facts


def test_the_facts_describe_this_interpreter_and_leave_the_start_method_unset():
    facts = concurrency_facts.facts()
    assert facts["python_version"] == "%d.%d.%d" % sys.version_info[:3]
    assert facts["executable"] == sys.executable
    assert facts["gil_enabled"] is True and facts["free_threaded_build"] is False
    assert facts["switch_interval_s"] == sys.getswitchinterval()
    assert facts["usable_cpus"] <= facts["affinity_cpus"] == len(os.sched_getaffinity(0)) <= facts["cpu_count"]
    assert facts["cores_limited_by"] in ("cgroup CPU quota", "affinity mask", "machine") and facts["cores_why"]
    assert facts["default_thread_pool_workers"] == min(32, (os.cpu_count() or 1) + 4)
    assert facts["default_start_method"] in facts["start_methods"]
    # asking must not fix the start method for the student's later set_start_method()
    assert multiprocessing.get_start_method(allow_none=True) is None
