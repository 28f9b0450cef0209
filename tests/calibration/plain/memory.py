"""Plain reference for %%gilbench --memory: run the design once in this fresh process (the
plain pools.py script), then read this process's own peak resident set (VmHWM in
/proc/self/status) and, for process pools, the largest worker's (getrusage RUSAGE_CHILDREN
ru_maxrss, in KiB on Linux). Standard library only;
`python3 memory.py MODE JOB WORKERS JOBS [START_METHOD]` prints both in MiB.
"""

import resource
import sys

import pools


def vm_hwm_mib():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise OSError("no VmHWM in /proc/self/status")


if __name__ == "__main__":
    mode, job, workers, jobs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    pools.wall_s(mode, job, workers, jobs, *sys.argv[5:])
    print(vm_hwm_mib(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
