"""A GIL probe written in Python, for child interpreters (--python), where the kernel's native
probe (magics/instruments/gil_probe.cpp) cannot load. A thread that wants to run every `every_s`
("sleep": a metrics or heartbeat thread) or gives the GIL back and asks again at once
("yield": a time.sleep(0) loop), recording per wake-up when it wanted to run, when it ran and
when it let go, in nanoseconds since it started: the native probe's sample, so the kernel
summarises both with the same code.

What it cannot see: the native probe stamps the moment it asks for the GIL and the moment it
has it; a Python thread can only stamp once it runs Python again, that is once it holds the
GIL. So for "sleep" the wait includes the OS's wake-up delay (asked = scheduled), and every
stamp costs a few bytecodes under the GIL. Standard library only, CPython 3.8+.
"""

import threading
import time

HISTOGRAM_BUCKETS = 32  # as the native probe: bucket k counts waits in [2^(k-1), 2^k) us


class LatenessProbe:
    def __init__(self, schedule, every_s, capacity):
        if schedule not in ("sleep", "yield"):
            raise ValueError("schedule must be sleep or yield, not %r" % schedule)
        self.schedule = schedule
        self.every_s = every_s
        self.capacity = max(2, int(capacity))
        self.samples = []
        # Past capacity every other kept sample is dropped and the stride doubles: the kept
        # ones stay an even sample of the whole window; totals and the maximum cover all.
        self.stride = 1
        self.acquisitions = 0
        self.total_wait_ns = 0
        self.total_hold_ns = 0
        self.max_wait_ns = 0
        self.histogram = [0] * HISTOGRAM_BUCKETS
        self._running = False
        self._thread = None
        self.started_ns = 0
        self._stopped = None

    def start(self):
        self._running = True
        self.started_ns = time.perf_counter_ns()
        self._thread = threading.Thread(target=self._run, name="gillab-probe", daemon=True)
        self._thread.start()

    def stop(self):
        """Joins the probe; a sleeping probe ends at its next wake-up (at most every_s)."""
        if self._thread is None:
            return
        self._stopped = time.perf_counter_ns()
        self._running = False
        self._thread.join()
        self._thread = None

    def _record(self, scheduled, asked, acquired, released):
        wait = acquired - asked
        self.acquisitions += 1
        self.total_wait_ns += wait
        self.total_hold_ns += released - acquired
        if wait > self.max_wait_ns:
            self.max_wait_ns = wait
        self.histogram[min(HISTOGRAM_BUCKETS - 1, (max(wait, 0) // 1000).bit_length())] += 1
        if (self.acquisitions - 1) % self.stride == 0:
            self.samples.append((scheduled, asked, acquired, released))
            if len(self.samples) >= self.capacity:
                del self.samples[1::2]
                self.stride *= 2

    def _run(self):
        now = time.perf_counter_ns
        sleep = time.sleep
        start = self.started_ns
        period = int(self.every_s * 1e9)
        if self.schedule == "sleep":
            wanted = start + period
            while self._running:
                delay = wanted - now()
                if delay > 0:
                    sleep(delay * 1e-9)
                acquired = now()
                if not self._running:
                    break
                released = now()
                self._record(wanted - start, wanted - start, acquired - start, released - start)
                wanted = released + period
        else:
            while self._running:
                asked = now()
                sleep(0)
                acquired = now()
                self._record(asked - start, asked - start, acquired - start, now() - start)

    def report(self):
        """JSON-ready: what the kernel turns into the native probe's summary."""
        end = self._stopped if self._stopped is not None else time.perf_counter_ns()
        return {"schedule": self.schedule, "every_s": self.every_s, "span_s": (end - self.started_ns) * 1e-9,
                "acquisitions": self.acquisitions, "total_wait_s": self.total_wait_ns * 1e-9,
                "total_hold_s": self.total_hold_ns * 1e-9, "max_wait_ms": self.max_wait_ns * 1e-6,
                "wait_histogram": self.histogram, "stride": self.stride,
                "samples": [list(sample) for sample in self.samples]}
