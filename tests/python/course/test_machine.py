"""gillab.course.machine: sentences and interpreters from %gilinfo results."""

from gillab.course import describe, find_python


def test_describe_and_find_python_read_gilinfo_results():
    class Info:
        usable_cpus, gil_enabled, python_version = 12, True, "3.11.2"
        switch_interval_ms, default_thread_pool_workers, default_start_method = 5.0, 16, "fork"

    text = describe(Info())
    assert "12 CPUs" in text and "16 workers" in text and "by fork" in text and "with the GIL" in text

    class Contained(Info):
        usable_cpus, cores_why = 1, "the cgroup CPU quota (/sys/fs/cgroup/cpu.max: 1 CPU)"

    assert "may use 1 CPU, set by the cgroup CPU quota (/sys/fs/cgroup/cpu.max: 1 CPU)." in describe(Contained())

    class Found:
        interpreters = [{"version": "3.9.6", "executable": "/a/3.9.6"}, {"version": "3.9.18", "executable": "/b/3.9.18"},
                        {"version": "3.13.5", "executable": "/t", "free_threaded_build": True}]

    assert find_python(Found(), "3.9") == "/b/3.9.18"
    assert find_python(Found(), "3.13") is None and find_python(Found(), "3.13", free_threaded=True) == "/t"


def test_threads_allowed_fits_a_run_under_the_process_limit_and_says_so(monkeypatch):
    import resource
    from gillab.course.machine import threads_allowed
    monkeypatch.setattr(resource, "getrlimit", lambda which: (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    assert threads_allowed(10_000) == (10_000, "")
    monkeypatch.setattr(resource, "getrlimit", lambda which: (62_000, 62_000))
    assert threads_allowed(10_000) == (10_000, "")
    monkeypatch.setattr(resource, "getrlimit", lambda which: (2048, 2048))  # gillab-grade's sandbox
    allowed, why = threads_allowed(10_000)
    assert allowed == 1400 and "at most 2,048 processes and threads" in why and "1,400 waits stand in for 10,000" in why
