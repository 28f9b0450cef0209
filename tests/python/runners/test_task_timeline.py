import sys

from gillab.runners import task_timeline


def test_two_threads_stamp_in_turns_for_the_window():
    # A window of many switch intervals: on a loaded machine the waiting thread can miss a
    # short window altogether, and the test is about turns, not about how soon they come.
    previous = sys.getswitchinterval()
    sys.setswitchinterval(0.001)
    try:
        opened, stamps = task_timeline.record(0.25, 5_000_000)
    finally:
        sys.setswitchinterval(previous)
    assert len(stamps) == 2
    for own in stamps:
        assert len(own) > 100
        assert list(own) == sorted(own)  # each thread's own clock only moves forward
        assert own[0] >= opened - 50_000_000 and own[-1] - own[0] < 1_000_000_000
    # under the GIL the threads took turns: each ran while the other had stamps before and after
    merged = sorted([(t, 0) for t in stamps[0]] + [(t, 1) for t in stamps[1]])
    switches = sum(1 for a, b in zip(merged, merged[1:]) if a[1] != b[1])
    assert switches >= 2


def test_a_full_buffer_ends_the_thread_early():
    opened, stamps = task_timeline.record(1.0, 1000)
    assert [len(own) for own in stamps] == [1000, 1000]


def test_every_interval_of_the_plan_is_recorded_in_order_and_the_interval_is_put_back():
    previous = sys.getswitchinterval()
    answer = task_timeline.measure({"intervals_s": [0.002, 0.0005], "window_s": 0.02, "capacity": 100_000})
    assert [run["interval_s"] for run in answer["runs"]] == [0.002, 0.0005]
    assert all(len(run["stamps"]) == 2 and len(run["stamps"][0]) > 0 for run in answer["runs"])
    assert sys.getswitchinterval() == previous
