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


def _gaps_beside(load, every_s, warmup_s):
    """The heartbeat's gaps (ms) while `load()` (a coroutine function) runs after the warm-up."""
    ticks = []
    done = []

    async def heartbeat():
        while not done:
            await asyncio.sleep(every_s)
            ticks.append(time.perf_counter())

    async def main():
        beat = asyncio.create_task(heartbeat())
        await asyncio.sleep(warmup_s)
        await load()
        done.append(True)
        await beat

    asyncio.run(main())
    return [(b - a) * 1e3 for a, b in zip(ticks, ticks[1:])]


def blocked_max_gap_ms(block_s, every_s=0.01, warmup_s=0.05):
    async def blocking():
        time.sleep(block_s)
    return max(_gaps_beside(blocking, every_s, warmup_s))


def beside_spinner_median_gap_ms(load_s, every_s=0.01, warmup_s=0.05):
    """The loop free (the coroutine awaits) while a thread spins for `load_s`."""
    async def spinning():
        spinner = threading.Thread(target=spin, args=(load_s,))
        spinner.start()
        await asyncio.sleep(load_s)
        spinner.join()
    return statistics.median(_gaps_beside(spinning, every_s, warmup_s))


if __name__ == "__main__":
    chosen = blocked_max_gap_ms if sys.argv[1] == "blocked" else beside_spinner_median_gap_ms
    print(chosen(float(sys.argv[2])))
