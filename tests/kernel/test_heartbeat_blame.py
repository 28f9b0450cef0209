"""%%heartbeat's blame over the protocol, with known answers: a coroutine that calls time.sleep
stalls the loop, and the stall is charged to that line of the cell (a call into time.sleep);
a loop starved of the GIL by a thread's long big-integer multiply is charged to that thread
and line; an awaiting coroutine leaves nothing to blame; --no-blame leaves the table out."""

from cell_lines import line_of


def test_a_time_sleep_in_a_coroutine_is_blamed_for_the_stall(kernel):
    cell = ("%%heartbeat -o hb\n"
            "import time\n"
            "async def handler():\n"
            "    time.sleep(0.5)  # BLOCKS\n"
            "await handler()\n")
    result = kernel.execute(cell, timeout=60)
    assert result.status == "ok", result.reply["content"]
    assert result.stream("stderr") == ""
    blame = kernel.eval("hb.blame()")
    assert blame, blame
    top = blame[0]
    assert top["where"] == f"cell line {line_of(cell, '# BLOCKS')}", blame
    assert top["cause"] == "ran"
    assert top["calls"] == "time.sleep"
    assert top["share"] > 0.7, blame
    assert 300 < top["stall_ms"] < 2000, top
    assert "blame: what stalled the event loop" in result.value()


def test_a_loop_starved_by_a_threads_multiply_is_blamed_on_that_thread_and_line(kernel):
    kernel.ok("a, b = 3 ** 2_000_000, 7 ** 1_600_000", timeout=120)
    cell = ("%%heartbeat -o hb\n"
            "import threading, asyncio\n"
            "def crunch():\n"
            "    for _ in range(3):\n"
            "        product = a * b  # MULTIPLY\n"
            "worker = threading.Thread(target=crunch, name='cruncher')\n"
            "worker.start()\n"
            "while worker.is_alive():\n"
            "    await asyncio.sleep(0.005)\n")
    kernel.ok(cell, timeout=120)
    blame = kernel.eval("hb.blame()")
    behind = [c for c in blame if c["cause"] == "waited for the GIL" and c["holder"] == "cruncher"
              and c["where"] == f"cell line {line_of(cell, '# MULTIPLY')}"]
    assert behind, blame
    assert sum(c["share"] for c in behind) > 0.5, blame


def test_an_awaiting_coroutine_leaves_nothing_to_blame(kernel):
    kernel.ok("%%heartbeat -o hb\nimport asyncio\nawait asyncio.sleep(0.3)\n", timeout=60)
    late = kernel.eval("hb.to_dict()['data']['late_beats']")
    assert late <= 2, late  # a loaded machine may wake the loop late once or twice


def test_no_blame_leaves_the_table_out(kernel):
    result = kernel.execute("%%heartbeat --no-blame -o hb\nimport time\ntime.sleep(0.05)\n", timeout=60)
    assert result.status == "ok", result.reply["content"]
    assert "what stalled the event loop" not in result.value()
    assert kernel.eval("hb.blame()") == []
