"""gillab.lectures.machine: sentences and interpreters from %gilinfo results."""

from gillab.lectures import describe, find_python


def test_describe_and_find_python_read_gilinfo_results():
    class Info:
        usable_cpus, gil_enabled, python_version = 12, True, "3.11.2"
        switch_interval_ms, default_thread_pool_workers, default_start_method = 5.0, 16, "fork"

    text = describe(Info())
    assert "12 CPUs" in text and "16 workers" in text and "by fork" in text and "with the GIL" in text

    class Found:
        interpreters = [{"version": "3.9.6", "executable": "/a/3.9.6"}, {"version": "3.9.18", "executable": "/b/3.9.18"},
                        {"version": "3.13.5", "executable": "/t", "free_threaded_build": True}]

    assert find_python(Found(), "3.9") == "/b/3.9.18"
    assert find_python(Found(), "3.13") is None and find_python(Found(), "3.13", free_threaded=True) == "/t"
