"""The calibration's cases: each magic and mode beside the plain script of the same design
(plain/), at two sizes: "test" (make test: short, margins a loaded 2-core machine keeps) and
"full" (make calibrate)."""

from harness import PLAIN, Case

INTERVALS = ["5ms", "1ms", "0.5ms", "0.2ms"]


def _seconds(text):
    return float(text[:-2]) / 1e3


def probe_cases(size):
    duration = "1s" if size == "full" else "0.3s"
    cases = []
    for probe, reference in (("yield", "time.sleep(0) loop"), ("sleep", "Python waker every 1 ms")):
        for interval in INTERVALS if size == "full" else ["5ms", "0.5ms"]:
            magic = ["%%switchinterval --sweep %s --probe %s --duration %s -o _calib" % (interval, probe, duration),
                     "_calib.median(%r)" % interval]
            reference_cell = "probes.median_lateness_ms(%r, %r, %s)" % (probe, _seconds(interval), duration[:-1])
            cases.append(Case("%%switchinterval --probe %s at %s, median" % (probe, interval),
                              "%s beside a Python spinner" % reference, magic, reference_cell, "ms",
                              # the waker's lateness at short intervals is mostly the OS's wake-up
                              noisy=probe == "sleep" and interval in ("0.5ms", "0.2ms"),
                              # under load a probe's run can land in another regime (running free,
                              # or waiting several intervals): make test keeps a wide margin
                              margin=4.0))
    return cases


def _cell(job):
    asynchronous = job.startswith("a")
    return ("import sys\nsys.path.insert(0, %r)\nimport jobs\n%sdef %s(i):\n    return %sjobs.%s(i)\n"
            % (PLAIN, "async " if asynchronous else "", "ajob" if asynchronous else "job",
               "await " if asynchronous else "", job))


def gilbench_case(mode, job, workers, jobs, start_method=None, margin=2.0, noisy=False, timeout=300):
    options = "--modes %s --workers %s --jobs %d --repeats 1 --warmup 0 --budget 600s" % (mode, workers, jobs)
    if start_method:
        options += " --start-method " + start_method
    lookup = "'sequential'" if mode == "sequential" else "%r, %r" % (mode, workers if workers == "per-job" else int(workers))
    magic = ["%%%%gilbench %s -o _calib\n%s" % (options, _cell(job)), "_calib.wall(%s)" % lookup]
    count = jobs if workers == "per-job" else int(workers)
    if mode == "processes":
        reference_cell = ("float(__import__('subprocess').run([sys.executable, %r, 'processes', %r, '%d', '%d', %r], "
                          "capture_output=True, text=True, check=True).stdout)"
                          % (PLAIN + "/pools.py", job, count, jobs, start_method))
        reference = "ProcessPoolExecutor(%d, %s) script" % (count, start_method)
    elif mode == "asyncio":
        reference_cell = "pools.wall_s('asyncio', %r, %d, %d)" % (job, count, jobs)
        reference = "asyncio.gather of %d tasks" % jobs
    elif mode == "threads":
        reference_cell = "pools.wall_s('threads', %r, %d, %d)" % (job, count, jobs)
        reference = "ThreadPoolExecutor(%d).map" % count
    else:
        reference_cell = "pools.wall_s('sequential', %r, 1, %d)" % (job, jobs)
        reference = "for loop"
    name = "%%%%gilbench %s%s x %s, %d %s jobs" % (mode, " (%s)" % start_method if start_method else "", workers, jobs, job)
    return Case(name, reference, magic, reference_cell, "s", margin=margin, noisy=noisy, timeout=timeout)


def gilbench_cases(size):
    full = size == "full"
    n = 8 if full else 4
    cases = []
    for job in ("python", "sleep", "compress"):
        cases.append(gilbench_case("sequential", job, "1", n))
        cases.append(gilbench_case("threads", job, "2", n))
        if full or job == "sleep":
            cases.append(gilbench_case("threads", job, "4", n))
        for method in ("fork", "spawn"):
            if full or job == "python":
                # a fresh interpreter's start-up is tens of ms of a short run: wider spread, and
                # make test's runs of a tenth of a second keep a wider margin
                cases.append(gilbench_case("processes", job, "2", n, method, noisy=method == "spawn", margin=2.5))
    cases.append(gilbench_case("asyncio", "asleep", "per-job", n))
    # thousands of per-job waits: the two designs the lectures compare
    for jobs in ((1000, 10000) if full else (1000,)):
        cases.append(gilbench_case("threads", "wait", "per-job", jobs))
        # the magic's asyncio mode measured up to 1.8x the plain gather here: a finding, kept visible
        cases.append(gilbench_case("asyncio", "await_wait", "per-job", jobs, margin=2.5, noisy=True))
    if full:
        cases.append(gilbench_case("threads", "wait", "per-job", 3000))
    return cases


def gilinfo_cases(size):
    return [Case("%gilinfo cores usable", "affinity mask and cgroup CPU quota, read directly",
                 ["%gilinfo -o _calib", "_calib.usable_cpus"], "cores.usable_cores()", "cores")]


def all_cases(size):
    return gilinfo_cases(size) + probe_cases(size) + gilbench_cases(size)
