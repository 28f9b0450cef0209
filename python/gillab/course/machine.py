"""Sentences about the student's machine, generated from %gilinfo's result, so the
lecture text is true on a 2-core VM and on a 12-core laptop alike."""


def describe(info):
    """One paragraph: the interpreter, the GIL, the cores this process may use, the
    default thread pool and start method, from a `%gilinfo -o info` result."""
    cpus = info.usable_cpus
    gil = "with the GIL" if info.gil_enabled else "without a GIL (free-threaded)"
    cores = "1 CPU" if cpus == 1 else f"{cpus} CPUs"
    why = getattr(info, "cores_why", "")
    text = (f"This kernel runs CPython {info.python_version} {gil}, and this process may use {cores}"
            f"{', set by ' + why if why else ''}. "
            f"The switch interval is {info.switch_interval_ms:g} ms. "
            f"A ThreadPoolExecutor() without max_workers gets {info.default_thread_pool_workers} workers here, "
            f"and a process pool starts its workers by {info.default_start_method} unless told otherwise.")
    return text


def find_python(interpreters, version, free_threaded=False):
    """The executable of the newest interpreter of `version` (such as "3.9") that
    `%gilinfo --interpreters -o NAME` found and that answered, or None."""
    def parts(entry):
        return [int(p) for p in str(entry.get("version", "")).split(".")[:3] if p.isdigit()]

    found = [p for p in interpreters.interpreters
             if parts(p)[:2] == [int(x) for x in version.split(".")[:2]]
             and bool(p.get("free_threaded_build")) == free_threaded and p.get("executable")]
    found.sort(key=parts, reverse=True)
    return found[0]["executable"] if found else None


def threads_allowed(wanted, spare=600, step=100):
    """(how many threads a run may start, at most `wanted`, a sentence or ""). A process limit
    (RLIMIT_NPROC, which counts threads: a grader's sandbox sets one) leaves `spare` tasks for the
    kernel and its children and rounds the rest down to `step`; the sentence says why the run is smaller."""
    import resource
    soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    if soft == resource.RLIM_INFINITY or soft - spare >= wanted:
        return wanted, ""
    allowed = max(step, (soft - spare) // step * step)
    return allowed, (f"This kernel may run at most {soft:,} processes and threads (RLIMIT_NPROC, set by a grader's "
                     f"sandbox, for instance), so {allowed:,} waits stand in for {wanted:,}.")
