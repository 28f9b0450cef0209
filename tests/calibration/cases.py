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


def gilbench_case(mode, job, workers, jobs, start_method=None, margin=2.0, noisy=False, timeout=300, apart=False):
    options = "--modes %s --workers %s --jobs %d --repeats 1 --warmup 0 --budget 600s" % (mode, workers, jobs)
    if start_method:
        options += " --start-method " + start_method
    if apart:
        options += " --startup apart"
    lookup = "'sequential'" if mode == "sequential" else "%r, %r" % (mode, workers if workers == "per-job" else int(workers))
    magic = ["%%%%gilbench %s -o _calib\n%s" % (options, _cell(job)), "_calib.wall(%s)" % lookup]
    count = jobs if workers == "per-job" else int(workers)
    if mode == "processes":
        reference_cell = ("float(__import__('subprocess').run([sys.executable, %r, %r, %r, '%d', '%d', %r], "
                          "capture_output=True, text=True, check=True).stdout)"
                          % (PLAIN + "/pools.py", "processes-apart" if apart else "processes", job, count, jobs, start_method))
        reference = "ProcessPoolExecutor(%d, %s) script%s" % (count, start_method, ", workers up first" if apart else "")
    elif mode == "asyncio":
        reference_cell = "pools.wall_s('asyncio', %r, %d, %d)" % (job, count, jobs)
        reference = "asyncio.gather of %d tasks" % jobs
    elif mode == "threads":
        reference_cell = "pools.wall_s('threads', %r, %d, %d)" % (job, count, jobs)
        reference = "ThreadPoolExecutor(%d).map" % count
    else:
        reference_cell = "pools.wall_s('sequential', %r, 1, %d)" % (job, jobs)
        reference = "for loop"
    method = " (%s)" % start_method if start_method else ""
    name = "%%%%gilbench %s%s x %s, %d %s jobs%s" % (mode, method, workers, jobs, job, ", --startup apart" if apart else "")
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
        # thousands of tasks: creating them is most of a short run, and a loaded machine spreads that
        cases.append(gilbench_case("asyncio", "await_wait", "per-job", jobs, margin=2.5, noisy=True))
    if full:
        cases.append(gilbench_case("threads", "wait", "per-job", 3000))
    # the pool's start-up: in the row (no-op jobs: the start-up is the row), and kept apart
    cases.append(gilbench_case("processes", "noop", "4", 4, "spawn", margin=2.5, noisy=True))
    cases.append(gilbench_case("processes", "python", "2", n, "spawn", margin=2.5, noisy=True, apart=True))
    return cases


def memory_cases(size):
    """--memory's peak RSS against the same design's own VmHWM (and, for a process pool, its
    largest worker's ru_maxrss), read by a fresh process of its own."""
    cases = []
    for mode, workers, method, figure, field in (
            ("sequential", 1, None, "_calib.peak_rss_mib('sequential')", 0),
            ("threads", 4, None, "_calib.peak_rss_mib('threads', 4)", 0),
            ("processes", 2, "fork", "_calib.run('processes', 2)['largest_child_rss_bytes'] / 2**20", 1)):
        options = "--modes %s --workers %d --jobs 8 --repeats 1 --warmup 0 --memory" % (mode, workers)
        options += " --start-method " + method if method else ""
        magic = ["%%%%gilbench %s -o _calib\n%s" % (options, _cell("hold")), figure]
        reference_cell = ("float(__import__('subprocess').run([sys.executable, %r, %r, 'hold', '%d', '8'%s], "
                          "capture_output=True, text=True, check=True).stdout.split()[%d])"
                          % (PLAIN + "/memory.py", mode, workers, ", %r" % method if method else "", field))
        what = "its largest worker's ru_maxrss" if field else "its VmHWM"
        # a run holds 40 MB per busy worker over a base of about 10 MB: the figure is structure
        cases.append(Case("%%%%gilbench --memory, %s x %d, 8 hold jobs%s" % (mode, workers, " (largest worker)" if field else ""),
                          "pools.py run alone, %s" % what, magic, reference_cell, "MiB", margin=1.5))
    return cases


def gilinfo_cases(size):
    return [Case("%gilinfo cores usable", "affinity mask and cgroup CPU quota, read directly",
                 ["%gilinfo -o _calib", "_calib.usable_cpus"], "cores.usable_cores()", "cores")]


def all_cases(size):
    return (gilinfo_cases(size) + probe_cases(size) + gilbench_cases(size) + memory_cases(size)
            + race_cases(size) + heartbeat_cases(size) + gilwatch_cases(size))


RACE_CELL = "counter = 0\ndef one_more(value):\n    return value + 1\ncounter = one_more(counter)"


def race_cases(size):
    iterations, runs, lock_runs = 200_000, 7, 5
    race = "%%race --threads 4 --iterations {} --runs {} --no-published --modes {} -o _calib\n{}"
    # which updates a forced switch destroys depends on where it lands: one run's lost share
    # lands anywhere from none to two thirds, so each figure is a median of several runs (fewer
    # and shorter for the lock's cost: a locked run takes twenty times an unlocked one)
    return [Case("%%race unlocked, 4 threads, lost %", "threading.Thread x 4, plain counter",
                 [race.format(iterations, runs, "unlocked", RACE_CELL), "_calib.lost_percent('unlocked')"],
                 "race.lost_percent(4, %d, %d)" % (iterations, runs), "%", margin=2.5, noisy=True),
            Case("%%race lock cost (x unlocked)", "the same threads with `with lock:`, locked wall / unlocked wall",
                 [race.format(iterations // 2, lock_runs, "unlocked,lock", RACE_CELL), "_calib.cost('lock')"],
                 "race.lock_cost(4, %d, %d)" % (iterations // 2, lock_runs), "x", margin=2.0, noisy=True)]


LOAD_CELL = ("import asyncio, threading, heartbeat\n"
             "load = threading.Thread(target=heartbeat.spin, args=(%s,))\nload.start()\n"
             "await asyncio.sleep(%s)\nload.join()")


def heartbeat_cases(size):
    load = "1.0" if size == "full" else "0.5"
    return [Case("%%heartbeat max gap, time.sleep(0.3) in the cell", "asyncio heartbeat task, plain",
                 ["%%heartbeat -o _calib\nimport time\ntime.sleep(0.3)", "_calib.max_gap_ms"],
                 "heartbeat.blocked_max_gap_ms(0.3)", "ms", margin=1.5),
            # each tick waits for the GIL behind the spinner (up to a switch interval) and, on a
            # loaded machine, for a core: the median of a few dozen gaps moves with the load
            Case("%%heartbeat median gap beside a pure-Python spinner", "asyncio heartbeat task beside the spinner",
                 ["%%heartbeat -o _calib\n" + LOAD_CELL % (load, load), "_calib.median_gap_ms"],
                 "heartbeat.beside_spinner_median_gap_ms(%s)" % load, "ms", margin=2.0, noisy=True)]


GILWATCH_CELL = ("import gilwatch\nthreads = gilwatch.threads_for(%r, %s)\n"
                 "for t in threads:\n    t.start()\nfor t in threads:\n    t.join()")


COUNTING_CELL = ("import gilwatch\nthreads, _turns = gilwatch.counting_spinners(%s)\n"
                 "for t in threads:\n    t.start()\nfor t in threads:\n    t.join()")


def gilwatch_cases(size):
    seconds = "1.0" if size == "full" else "0.5"
    cases = []
    # the mixed design's parts agree only on an idle machine (docs/benchmarks.md says why): full size only
    for design, name in (("spinners", "spin-0"), ("mixed", "nap-1"))[:2 if size == "full" else 1]:
        magic = ["%%gilwatch -o _calib\n" + GILWATCH_CELL % (design, seconds),
                 "gilwatch.fraction({n: _calib.held_share(n) for n in ('spin-0', %r)}, %r)"
                 % ("spin-1" if design == "spinners" else "nap-1", name)]
        # parts of the threads' total, not shares of the wall: a loaded machine stops a thread
        # holding the GIL as often as one without it, which lowers CPU shares but not GIL shares
        cases.append(Case("%%%%gilwatch %s's part of the held GIL (%s)" % (name, design),
                          "%s's part of the threads' CPU time (time.thread_time)" % name,
                          magic, "gilwatch.cpu_fraction(%r, %s, %r)" % (design, seconds, name), "", margin=1.5))
    # the sampled turns against the spinners' own count in a run of their own: a turn may last
    # several switch intervals, and how many depends on how often anything else on the machine
    # wakes up, the sampler's own wake-ups included (docs/benchmarks.md): ±20%, and a 2.5x margin
    cases.append(Case("%%gilwatch turns of two pure-Python spinners", "the spinners' own count of their turns",
                      ["%%gilwatch -o _calib\n" + COUNTING_CELL % seconds, "_calib.turns('spin-0') + _calib.turns('spin-1')"],
                      "gilwatch.counted_turns(%s)" % seconds, "turns", margin=2.5, noisy=True))
    return cases
