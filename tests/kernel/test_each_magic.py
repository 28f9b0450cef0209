"""The smoke suite's tour of the magics (make check): each magic once at a tiny size, once with a
bad option (a one-line UsageError, the kernel unharmed) and, for each that runs a cell or a
measurement, once stopped by the interrupt button, after which the next cell runs and the switch
interval is the student's again."""

import pytest

pytestmark = pytest.mark.check

# A tiny run of each magic, and what its text must mention.
RUNS = {
    "gilinfo": ("%gilinfo", "switch interval"),
    "gilbench": ("%%gilbench --modes sequential,threads --workers 2 --jobs 2 --repeats 1\n"
                 "def job(i):\n    return i * i\n", "gilbench"),
    "race": ("%%race --threads 2 --iterations 1000 --runs 1\ncounter = 0\ncounter += 1\n", "lost"),
    "switchinterval": ("%switchinterval --sweep 1ms --duration 0.2", "1 ms"),
    "heartbeat": ("%%heartbeat\nimport time\ntime.sleep(0.05)\n", "gap"),
    "gilwatch": ("%%gilwatch\nsum(range(100_000))\n", "GIL"),
}

BAD_OPTIONS = {
    "gilinfo": "%gilinfo --no-such-option",
    "gilbench": "%%gilbench --modes sideways\ndef job(i):\n    return i\n",
    "race": "%%race --threads none\ncounter = 0\ncounter += 1\n",
    "switchinterval": "%switchinterval --sweep fast",
    "heartbeat": "%%heartbeat --every soon\npass\n",
    "gilwatch": "%%gilwatch --period never\npass\n",
}

# A run long enough to be stopped half a second in (%gilinfo answers at once: nothing to stop).
LONG_RUNS = {
    "gilbench": "%%gilbench --modes threads --workers 2 --jobs 2 --repeats 1\nimport time\n"
                "def job(i):\n    time.sleep(100)\n",
    "race": "%%race --threads 2 --iterations 100000000 --runs 1\ncounter = 0\ncounter += 1\n",
    "switchinterval": "%switchinterval --sweep 5ms,1ms --duration 30",
    "heartbeat": "%%heartbeat\nimport time\ntime.sleep(100)\n",
    "gilwatch": "%%gilwatch\nimport time\ntime.sleep(100)\n",
}


@pytest.mark.parametrize("magic", sorted(RUNS))
def test_each_magic_runs_at_a_tiny_size(kernel, magic):
    code, mentions = RUNS[magic]
    text = kernel.ok(code, timeout=120).value()
    assert mentions.lower() in text.lower(), text[:2000]


@pytest.mark.parametrize("magic", sorted(BAD_OPTIONS))
def test_each_magic_answers_a_bad_option_with_one_line_and_the_kernel_goes_on(kernel, magic):
    result = kernel.execute(BAD_OPTIONS[magic], timeout=60)
    assert result.status == "error"
    assert result.reply["content"]["ename"] == "UsageError", result.reply["content"]
    message = result.reply["content"]["evalue"]
    assert message and "\n" not in message.strip(), message
    assert not result.stream("stderr")
    assert kernel.eval("1 + 1") == 2


@pytest.mark.parametrize("magic", sorted(LONG_RUNS))
def test_each_magic_stops_at_the_interrupt_and_puts_the_switch_interval_back(kernel, magic):
    interval = kernel.eval("__import__('sys').getswitchinterval()")
    kernel.interrupt_after(0.5)
    result = kernel.execute(LONG_RUNS[magic], timeout=60)
    assert result.status == "error"
    assert result.reply["content"]["ename"] == "KeyboardInterrupt", result.reply["content"]
    assert kernel.eval("__import__('sys').getswitchinterval()") == interval
    assert kernel.eval("1 + 1") == 2
