"""What decides concurrency in this interpreter, for %gilinfo: the interpreter's own description
(runners/interpreter.py) plus the cores it may use (runners/cores.py), the default thread pool's size and the
multiprocessing start methods."""

import multiprocessing
import os

from ..runners import start_method
from ..runners.cores import usable_cores
from ..runners.interpreter import describe


def default_thread_pool_workers():
    """ThreadPoolExecutor's default: 3.13 sizes it from the CPUs this process may use."""
    cpus = getattr(os, "process_cpu_count", os.cpu_count)() or 1
    return min(32, cpus + 4)


def facts():
    me, cores = describe(), usable_cores()
    return {
        "python_version": me["version"],
        "implementation": me["implementation"],
        "executable": me["executable"],
        "free_threaded_build": me["free_threaded_build"],
        "gil_enabled": me["gil_enabled"],
        "switch_interval_s": me["switch_interval_s"],
        "cpu_count": me["cpu_count"] or 1,
        "usable_cpus": cores["cores"],
        "cores_limited_by": cores["limited_by"],
        "cores_why": cores["why"],
        "affinity_cpus": cores["affinity_cpus"],
        "quota_cpus": cores["quota_cpus"],
        "default_thread_pool_workers": default_thread_pool_workers(),
        "default_start_method": start_method.current(),
        "start_methods": multiprocessing.get_all_start_methods(),
    }
