"""gillab.course' helpers that read real magic results, through the real kernel (the package's
other lecture helpers are tested on their own in tests/python/course/)."""


def test_lecture_helpers_read_real_magic_results_in_the_kernel(fresh_kernel):
    fresh_kernel.ok("from gillab.course import best_speedup, decision_table, keep, table\n"
                    "from gillab.course.races import interval_sweep, sweep_table")
    fresh_kernel.ok("%%gilbench --modes sequential,threads --workers 2 --jobs 2 --repeats 1 --warmup 0 -o waits\n"
                    "import time\ndef job(i):\n    time.sleep(0.05)\n    return i\n", timeout=120)
    assert float(fresh_kernel.eval("best_speedup(waits, 'threads', 2)")) > 1.3
    sweep = fresh_kernel.execute("s = interval_sweep(['1ms'], 2, 2000, 2)\nsweep_table(s)", timeout=120)
    assert sweep.status == "ok" and "text/markdown" in sweep.result_data()
    assert "| 1ms |" in sweep.result_data()["text/markdown"]
    fresh_kernel.ok("keep(4, worst_lost_percent=40.0, lock_lost=0, lock_cost=3.0, per_thread_cost=1.0)")
    shown = fresh_kernel.execute("decision_table(lectures=[4])")
    assert "up to 40% of updates lost" in shown.result_data()["text/markdown"]
    assert shown.stream("stderr") == ""


def test_each_long_c_call_keeps_the_native_probe_out_for_about_its_length(fresh_kernel):
    fresh_kernel.ok("from gillab.course.long_calls import measure, calls_table")
    # Calls of about 100 ms or more, so that a probe thread the OS wakes late on a loaded machine
    # still finds most of each call ahead of it.
    fresh_kernel.ok("found = measure(n=300_000, k=20, m=150_000)", timeout=120)
    found = fresh_kernel.eval("found")
    assert len(found) == 5, found
    for label, f in found.items():
        # the probe waits through the call (it asks every 1 ms); a generous margin for a loaded machine
        assert f["max_gil_wait_ms"] >= 0.5 * f["call_ms"] - 2, (label, f)
    shown = fresh_kernel.execute("calls_table(found)")
    assert "sorted() of 300,000 floats" in shown.result_data()["text/markdown"]
    assert shown.stream("stderr") == ""
