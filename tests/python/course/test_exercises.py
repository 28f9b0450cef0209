"""gillab.course.exercises: what the exercises' tests judge answers with."""

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from gillab.course.exercises import YieldingKey, cell_body


def _in_threads(target, count):
    with ThreadPoolExecutor(count) as pool:
        for future in [pool.submit(target) for _ in range(count)]:
            future.result()


def test_yielding_keys_equal_and_hash_as_their_strings():
    assert YieldingKey("bob") == "bob" and hash(YieldingKey("bob")) == hash("bob")
    assert {YieldingKey("bob"): 1}["bob"] == 1


def test_a_shared_counter_loses_updates_with_yielding_keys_and_a_locked_one_does_not():
    shared, locked, lock = Counter(), {}, threading.Lock()

    def unguarded():
        shared.update(YieldingKey("w") for _ in range(2_000))

    def guarded():
        for _ in range(500):
            with lock:
                locked[YieldingKey("w")] = locked.get(YieldingKey("w"), 0) + 1

    _in_threads(unguarded, 4)
    _in_threads(guarded, 4)
    assert shared["w"] < 8_000, "the reads and stores of four threads never interleaved"
    assert locked["w"] == 2_000


def test_cell_body_drops_the_magic_line():
    assert cell_body("%%race -o bank\nx = 0\nx += 1\n") == "x = 0\nx += 1\n"
    assert cell_body("%%race -o bank") == ""
