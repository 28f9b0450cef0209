"""Plain references for %%heartbeat, written from the published design and nothing of gillab's:
an asyncio task that wants to wake every `every_s`. Beside a coroutine that blocks the loop with
time.sleep: its largest gap between two ticks. Beside a thread spinning on pure-Python additions
while the loop is free: its median gap (each wake-up waits for the GIL the spinner holds).
Standard library only; `python3 heartbeat.py blocked 0.3` or `... spinner 0.5` prints ms.
"""

import asyncio
import statistics
import sys
import threading
import time


def spin(seconds):
    """The CPU-bound load, shared with the magic's cell: pure-Python additions for `seconds`."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        total = 0
        for k in range(200):
            total += k


def _gaps_ms(ticks):
    return [(b - a) * 1e3 for a, b in zip(ticks, ticks[1:])]


def blocked_max_gap_ms(block_s, every_s=0.01, warmup_s=0.05):
    ticks = []

    async def heartbeat(stop):
        while not stop.is_set():
            await asyncio.sleep(every_s)
            ticks.append(time.perf_counter())

    async def main():
        stop = asyncio.Event()
        beat = asyncio.create_task(heartbeat(stop))
        await asyncio.sleep(warmup_s)
        time.sleep(block_s)
        stop.set()
        await beat

    asyncio.run(main())
    return max(_gaps_ms(ticks))


def beside_spinner_median_gap_ms(load_s, every_s=0.01, warmup_s=0.05):
    """The same heartbeat task while a thread spins for `load_s` and the loop is free
    (the coroutine awaits): its median gap between two ticks."""
    ticks = []

    async def heartbeat(stop):
        while not stop.is_set():
            await asyncio.sleep(every_s)
            ticks.append(time.perf_counter())

    async def main():
        stop = asyncio.Event()
        beat = asyncio.create_task(heartbeat(stop))
        await asyncio.sleep(warmup_s)
        load = threading.Thread(target=spin, args=(load_s,))
        load.start()
        await asyncio.sleep(load_s)
        load.join()
        stop.set()
        await beat

    asyncio.run(main())
    return statistics.median(_gaps_ms(ticks))


if __name__ == "__main__":
    chosen = blocked_max_gap_ms if sys.argv[1] == "blocked" else beside_spinner_median_gap_ms
    print(chosen(float(sys.argv[2])))
