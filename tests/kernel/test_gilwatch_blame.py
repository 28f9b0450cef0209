"""%%gilwatch's blame over the protocol, with known answers: a pure-Python waiter beside a long
big-integer multiply waits mostly behind that line; beside zlib.compress, which releases the
GIL, it waits little behind it; beside a thread alternating the two in marked lines, the
multiply's line takes most of its wait and the compress line (named as a call into C) little;
lines are the student's cell lines (the %%gilwatch line is line 1); --no-blame reads no frames."""

import pytest
from cell_lines import line_of

# Operands whose product takes a fraction of a second in one BINARY_OP (the GIL held throughout).
OPERANDS = "a, b = 3 ** 2_000_000, 7 ** 1_600_000\nimport os\ndata = os.urandom(6_000_000)"

WAITER = (
    "import threading, time, zlib\n"
    "done = threading.Event()\n"
    "def spin():\n"
    "    while not done.is_set():\n"
    "        pass\n"
    "waiter = threading.Thread(target=spin, name='waiter')\n"
    "waiter.start()\n"
    "time.sleep(0.05)\n"
)


def watched(body):
    """A %%gilwatch cell: the waiter spins while `body` runs, then stops."""
    return "%%gilwatch -o w\n" + WAITER + body + "done.set()\nwaiter.join()\n"


def blamed_at(kernel, cell, marker, who="waiter"):
    """Seconds and share of `who`'s blamed wait behind the marked line, and its entry."""
    where = f"cell line {line_of(cell, marker)}"
    entries = [e for e in kernel.eval(f"w.blame({who!r})") if e["where"] == where]
    return sum(e["seconds"] for e in entries), sum(e["share"] for e in entries), entries


@pytest.fixture(scope="module")
def operands(kernel):
    kernel.ok(OPERANDS, timeout=120)
    return kernel


def test_a_waiter_beside_a_long_multiply_is_blamed_mostly_on_that_line(operands):
    kernel = operands
    cell = watched("for _ in range(3):\n"
                   "    product = a * b  # MULTIPLY\n")
    result = kernel.execute(cell, timeout=120)
    assert result.status == "ok", result.reply["content"]
    assert result.stream("stderr") == ""
    seconds, share, entries = blamed_at(kernel, cell, "# MULTIPLY")
    assert share > 0.5, kernel.eval("w.blame('waiter')")
    assert seconds > 0.1, seconds
    entry = max(entries, key=lambda e: e["seconds"])
    assert entry["holder"] == "MainThread"
    assert "product = a * b" in entry["text"]
    assert entry["instruction"] == "BINARY_OP"
    # The table a student reads names the line the same way.
    assert f"cell line {line_of(cell, '# MULTIPLY')}" in result.value()
    assert "blame: whom each thread waited behind" in result.value()


def test_a_waiter_beside_zlib_compress_is_blamed_little_on_it_since_it_releases_the_gil(operands):
    kernel = operands
    cell = watched("started = time.perf_counter()\n"
                   "for _ in range(3):\n"
                   "    packed = zlib.compress(data, 6)  # COMPRESS\n"
                   "compressing = time.perf_counter() - started\n")
    kernel.ok(cell, timeout=120)
    seconds, share, entries = blamed_at(kernel, cell, "# COMPRESS")
    compressing = kernel.eval("compressing")
    assert compressing > 0.1, compressing
    # The compress itself runs without the GIL: what the waiter waits behind that line is the
    # short stretches between deflate calls, a small part of the time spent compressing.
    assert seconds < 0.3 * compressing, (seconds, compressing, entries)
    for entry in entries:
        assert entry["calls"] in (None, "zlib.compress"), entry


def test_threads_alternating_multiply_and_compress_are_blamed_on_the_multiply_line(operands):
    kernel = operands
    cell = watched("def alternate():\n"
                   "    for _ in range(3):\n"
                   "        product = a * b  # MULTIPLY\n"
                   "        packed = zlib.compress(data, 6)  # COMPRESS\n"
                   "worker = threading.Thread(target=alternate, name='alternator')\n"
                   "worker.start()\n"
                   "worker.join()\n")
    kernel.ok(cell, timeout=120)
    multiply_s, multiply_share, multiply = blamed_at(kernel, cell, "# MULTIPLY")
    compress_s, _, compress = blamed_at(kernel, cell, "# COMPRESS")
    assert multiply_share > 0.4, kernel.eval("w.blame('waiter')")
    assert multiply_s > 3 * compress_s, (multiply, compress)
    assert {e["holder"] for e in multiply} == {"alternator"}
    assert all(e["function"] == "alternate" for e in multiply + compress)


def test_the_timeline_shows_the_holders_line_on_hover(operands):
    kernel = operands
    cell = watched("product = a * b  # MULTIPLY\n")
    result = kernel.execute(cell, timeout=120)
    spec = result.result_data()["application/vnd.vegalite.v5+json"]
    labels = {row.get("label", "") for row in spec["data"]["values"] if row["lane"] == "MainThread"}
    assert any(label.startswith(f"cell line {line_of(cell, '# MULTIPLY')}: product = a * b") for label in labels), labels
    assert {"field": "label", "type": "nominal", "title": "at"} in spec["encoding"]["tooltip"]


def test_lines_of_functions_from_earlier_cells_are_named_by_their_cell(operands):
    kernel = operands
    kernel.ok("def multiply_here():\n    return a * b  # EARLIER\n")
    count = kernel.eval("get_ipython().execution_count") - 1
    cell = watched("multiply_here()\n")
    kernel.ok(cell, timeout=120)
    top = kernel.eval("w.blame('waiter')")[0]
    assert top["where"] == f"In [{count}] line 2", top
    assert "return a * b" in top["text"]


def test_no_blame_reads_no_frames_and_says_so(kernel):
    result = kernel.execute("%%gilwatch --no-blame -o w\nx = sum(range(100000))\n", timeout=60)
    assert result.status == "ok", result.reply["content"]
    assert "blame: off" in result.value()
    assert kernel.eval("w.to_dict()['data']['blame_on']") is False
