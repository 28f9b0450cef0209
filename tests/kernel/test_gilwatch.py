"""%%gilwatch and %gilwatch start/stop over the protocol: two pure-Python
spinners share the GIL about evenly, each waiting about as long as the other
holds it, with hand-overs of the order of the switch interval; a sleeping
thread and a zlib thread hold little, shares never sum past one, threads that
ended are still named, interrupt stops the cell and the sampler, no sampler
thread outlives its watch, and bad input is a one-line error."""

import os

import pytest
from result_bundle import RESULT_MIME

SAMPLER_NAME = "gillab-gilwatch"  # the sampler thread's name in /proc

SPINNERS = (
    "import threading, time\n"
    "def spin(seconds):\n"
    "    end = time.perf_counter() + seconds\n"
    "    while time.perf_counter() < end:\n"
    "        pass\n"
    "threads = [threading.Thread(target=spin, args=(1.0,), name=f'spinner-{k}') for k in range(2)]\n"
    "for t in threads: t.start()\n"
    "for t in threads: t.join()\n"
)


def sampler_threads(kernel):
    names = []
    task_dir = f"/proc/{kernel.pid}/task"
    for tid in os.listdir(task_dir):
        try:
            with open(f"{task_dir}/{tid}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            pass  # the thread ended while listed
    return names.count(SAMPLER_NAME)


def usage_error(result):
    content = result.reply["content"]
    assert result.status == "error", content
    assert content["ename"] == "UsageError", content
    assert "\n" not in content["evalue"], content["evalue"]
    assert result.stream("stderr") == ""
    return content["evalue"]


def test_two_spinners_each_hold_about_half_with_handovers_at_the_switch_interval(kernel):
    result = kernel.execute("%%gilwatch -o w\n" + SPINNERS, timeout=60)
    assert result.status == "ok", result.reply["content"]
    assert result.stream("stderr") == ""
    data = result.result_data()
    assert {"text/plain", "text/html", RESULT_MIME, "application/vnd.vegalite.v5+json"} <= set(data)
    shares = [kernel.eval(f"w.held_share('spinner-{k}')") for k in range(2)]
    assert all(0.25 < share < 0.75 for share in shares), shares
    assert sum(shares) > 0.8, shares
    wall = kernel.eval("w.wall_s")
    interval = kernel.eval("w.switch_interval_ms") / 1e3
    handovers = kernel.eval("w.handovers")
    # Forced switching hands over about once per interval; on a loaded machine the waiter wakes
    # late and turns stretch (30 ms seen at load 18), so "of the order of" is a factor of ten.
    assert 0.1 * wall / interval < handovers < 3 * wall / interval, (handovers, wall, interval)
    turns = kernel.eval("w.turns('spinner-0')")
    assert turns > 10, turns
    segments = kernel.eval("w.segments('spinner-0')")
    assert len(segments) > 10
    assert all(0 <= s["start_ms"] <= s["end_ms"] <= wall * 1e3 + 1 for s in segments)
    spinner = next(t for t in kernel.eval("w.threads") if t["name"] == "spinner-0")
    assert {"name", "ident", "held_s", "held_share", "turns", "median_turn_ms", "longest_turn_ms"} <= set(spinner)
    assert spinner["started_in_window"] and not spinner["alive_at_end"]  # an ended thread is still named
    assert 1 < spinner["median_turn_ms"] < 100, spinner


def test_two_spinners_each_wait_for_the_gil_about_as_long_as_the_other_holds_it(kernel):
    kernel.ok("%%gilwatch -o w\n" + SPINNERS, timeout=60)
    for k in range(2):
        name = f"spinner-{k}"
        held, waiting = kernel.eval(f"w.held_share('{name}')"), kernel.eval(f"w.waiting_share('{name}')")
        # time inside take_gil, proven from the GIL's state: most of the other's half (queued for a core
        # before it asks again is not waiting yet, which a busy machine stretches)
        assert 0.2 < waiting < 0.75, (name, held, waiting)
        assert held + waiting <= 1 + 1e-6, (name, held, waiting)


def test_shares_sum_to_at_most_one(kernel):
    kernel.ok("%%gilwatch -o w\n" + SPINNERS.replace("1.0", "0.4"), timeout=60)
    threads = kernel.eval("w.threads")
    total = sum(t["held_share"] for t in threads)
    assert total <= 1 + 1e-9, threads
    covered = total + kernel.eval("w.idle_share") + kernel.eval("w.unattributed_share")
    assert covered == pytest.approx(1, abs=0.02), covered


def test_a_sleeping_thread_holds_almost_nothing(kernel):
    code = ("%%gilwatch -o w\nimport threading, time\n"
            "t = threading.Thread(target=time.sleep, args=(0.5,), name='sleeper')\nt.start()\nt.join()\n")
    kernel.ok(code)
    assert kernel.eval("w.held_share('sleeper')") < 0.02
    assert kernel.eval("w.waiting_share('sleeper')") < 0.02  # asleep is not waiting for the GIL
    assert kernel.eval("w.idle_share") > 0.9  # nobody held the GIL while both waited


def test_a_zlib_thread_holds_little(kernel):
    code = ("%%gilwatch -o w\nimport os, threading, time, zlib\n"
            "data = os.urandom(1 << 20) * 4\n"
            "calls = 0\n"
            "def squeeze():\n"
            "    global calls\n"
            "    end = time.perf_counter() + 0.6\n"
            "    while time.perf_counter() < end:\n"
            "        zlib.compress(data, 6)\n"
            "        calls += 1\n"
            "t = threading.Thread(target=squeeze, name='zlib')\nt.start()\nt.join()\n")
    kernel.ok(code, timeout=60)
    assert kernel.eval("calls") >= 1  # it did compress while watched
    assert kernel.eval("w.held_share('zlib')") < 0.2  # zlib releases the GIL around each call


def test_the_cell_thread_is_named_and_the_cell_runs_in_the_namespace(kernel):
    kernel.ok("%%gilwatch -o w\ntotal = 0\nfor k in range(300_000):\n    total += k\n")
    assert kernel.eval("total") == sum(range(300_000))
    assert kernel.eval("w.held_share('MainThread')") > 0.5
    assert kernel.eval("w.mode") == "cell"


def test_line_form_watches_across_cells(kernel):
    started = kernel.ok("%gilwatch start --period 100us")
    assert "watching" in started.value()
    assert sampler_threads(kernel) == 1
    kernel.ok(SPINNERS.replace("1.0", "0.3"), timeout=60)
    kernel.ok("w = %gilwatch stop")
    assert sampler_threads(kernel) == 0
    assert kernel.eval("w.mode") == "span"
    assert kernel.eval("w.held_share('spinner-1')") > 0.05
    assert kernel.eval("w.period_us") == pytest.approx(100)
    assert "no watch is running" in usage_error(kernel.execute("%gilwatch stop"))


def test_interrupt_stops_the_cell_and_the_sampler(kernel):
    kernel.interrupt_after(1.0)
    result = kernel.execute("%%gilwatch\nwhile True:\n    pass\n", timeout=30)
    assert result.reply["content"]["ename"] == "KeyboardInterrupt", result.reply["content"]
    assert sampler_threads(kernel) == 0
    assert kernel.eval("1+1") == 2


def test_no_sampler_outlives_its_cell(kernel):
    kernel.ok("%%gilwatch\npass\n")
    assert sampler_threads(kernel) == 0
    result = kernel.execute("%%gilwatch\nraise ValueError('in the cell')\n")
    assert result.reply["content"]["ename"] == "ValueError"
    assert result.stream("stderr") == ""
    assert sampler_threads(kernel) == 0
    kernel.ok("import sys, threading\nassert threading.gettrace() is None and sys.gettrace() is None\n")


@pytest.mark.parametrize("line, cell, expected", [
    ("%%gilwatch --period 1us", "pass", "--period"),
    ("%%gilwatch --period soon", "pass", "--period"),
    ("%%gilwatch --bogus", "pass", "--bogus"),
    ("%%gilwatch start", "pass", "line form"),
    ("%%gilwatch", "", "empty"),
    ("%%gilwatch", "def broken(:\n", "not valid Python"),
    ("%%gilwatch", "x = 1\x00\n", "null bytes"),
    ("%gilwatch", None, "start or stop"),
    ("%gilwatch restart", None, "start, stop"),
])
def test_bad_input_is_a_one_line_error(kernel, line, cell, expected):
    code = line if cell is None else line + "\n" + cell
    assert expected in usage_error(kernel.execute(code))
    assert sampler_threads(kernel) == 0
    assert kernel.eval("1+1") == 2


def test_the_manual_names_the_limits(kernel):
    result = kernel.ok("%%gilwatch?")
    pages = [p for p in result.reply["content"]["payload"] if p.get("source") == "page"]
    text = pages[0]["data"]["text/plain"]
    assert "--period" in text and "shorter than the gap between two samples" in text and "lower bound" in text


def test_threads_that_reuse_an_ended_threads_memory_are_told_apart(kernel):
    # One after another, so each new thread state is likely to land where the last one was freed.
    code = ("%%gilwatch -o w\nimport threading, time\n"
            "def spin():\n    end = time.perf_counter() + 0.02\n    while time.perf_counter() < end:\n        pass\n"
            "for k in range(30):\n"
            "    t = threading.Thread(target=spin, name=f'short-{k:02d}')\n    t.start()\n    t.join()\n")
    kernel.ok(code, timeout=60)
    short = [t for t in kernel.eval("w.threads") if t["name"].startswith("short-")]
    assert len(short) == 30 and all(not t["alive_at_end"] for t in short)
    assert len({t["name"] for t in short}) == 30
    assert kernel.eval("w.unattributed_share") == 0
    assert sum(1 for t in short if t["held_share"] > 0) > 25  # each ran ~20 ms of Python under its own name
    assert all(t["held_s"] < 0.2 for t in short), short


def test_the_timeline_draws_one_lane_per_thread_that_held_the_gil(kernel):
    result = kernel.ok("%%gilwatch -o w\n" + SPINNERS.replace("1.0", "0.3"), timeout=60)
    data = result.result_data()
    spec = data["application/vnd.vegalite.v5+json"]
    text = str(spec)
    assert "spinner-0" in text and "spinner-1" in text
    payload = data[RESULT_MIME]
    assert payload["schema"] == "gillab.result" and payload["magic"] == "gilwatch"
    assert payload["data"]["mode"] == "cell"
    lanes = {lane["name"]: lane for lane in payload["data"]["lanes"]}
    assert lanes["spinner-0"]["segments"] == kernel.eval("w.segments('spinner-0')")


def progress_of(result, magic):
    """The progress line's display and its updates, in order."""
    shown = [m for m in result.of_type("display_data")
             if m["content"]["data"].get("text/plain", "").startswith(f"{magic}: ")]
    if not shown:
        return []
    display_id = shown[0]["content"]["transient"]["display_id"]
    updates = [m for m in result.of_type("update_display_data") if m["content"]["transient"]["display_id"] == display_id]
    return [m["content"]["data"]["text/plain"] for m in shown[:1] + updates]


def test_a_cell_running_for_seconds_shows_its_progress_and_a_short_one_shows_none(kernel):
    lines = progress_of(kernel.ok("%%gilwatch\nimport time\ntime.sleep(3.5)\n", timeout=60), "gilwatch")
    assert len(lines) >= 2, lines  # shown after 2 s, updated each second, and the last word when done
    assert all(line.startswith("gilwatch: watching the cell, ") for line in lines), lines
    assert "so far" in lines[0] and "so far" not in lines[-1], lines
    assert progress_of(kernel.ok("%%gilwatch\npass\n"), "gilwatch") == []
