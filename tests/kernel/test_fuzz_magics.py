"""Fuzz of every registered magic through the kernel: generated argument
strings and cell bodies (unicode, huge and negative numbers, unknown options,
empty cells, syntax errors, binary junk, very long lines) from a seeded RNG.
Every input gets a result or an error within the budget; a UsageError is one
line; any other error is the job's own (the cell was valid Python); nothing
reaches stderr; the kernel answers 1+1 after each input.

    make test                              GILLAB_FUZZ_COUNT inputs (default 250)
    GILLAB_FUZZ_COUNT=5000 GILLAB_FUZZ_SEED=11 make kernel-test   the full run
"""

import os
import random
import re
import textwrap
import time
from collections import Counter

import pytest

COUNT = int(os.environ.get("GILLAB_FUZZ_COUNT", "250"))
SEED = int(os.environ.get("GILLAB_FUZZ_SEED", "7"))
BUDGET_S = float(os.environ.get("GILLAB_FUZZ_BUDGET_S", "30"))

NUMBERS = ["0", "-1", "-0", "1", "2", "3", "-2", "1.5", "0.0", "1e-9", "-1e-9", "nan", "NaN", "inf", "-inf",
           "1e309", "-1e309", "9" * 40, "-" + "9" * 40, str(2**63), str(-2**63 - 1), str(2**64), "0x10", "1_000",
           "1,2", "1,,2", ",", "1,", ",1", "2,-1", "0,0", "1,2,3,4,5,6,7,8,9,10,11,12", "١٢", "²", "½", "1 2"]
DURATIONS = ["1ms", "0.2ms", "5us", "5µs", "1s", "0", "0.001", "-1ms", "0ms", "1e400s", "nans", "ms", "s", "us",
             "1 ms", "1msms", "1h", "1e-30s", "+1ms", "1.ms", ".5ms", "infs", "1MS"]
WORDS = ["", "sequential", "threads", "processes", "asyncio", "fork", "spawn", "forkserver", "strong", "weak",
         "included", "apart", "threads,processes", "threads,,", "gpu", "THREADS", "x", "r", "_", "class", "1abc",
         "None", "__builtins__", "get_ipython", "é", "名前", "a-b", "Ω" * 50]
JUNK_CHARS = "\x00\x01\x07\x1b\x7f\u200b\u202e\ufeff\ud7ff\U0001f600\\'\"`$%{}[]();|&<>*?~#=\t -—"


def junk(rng, length):
    return "".join(rng.choice(JUNK_CHARS) if rng.random() < 0.6 else chr(rng.randrange(0x20, 0x3000))
                   for _ in range(length)).replace("\n", " ")


def options_of(help_text):
    """(long name, short name or None, takes a value) from the usage line."""
    usage = help_text.splitlines()[0]
    options = []
    for name, metavar in re.findall(r"\[--([\w-]+)(?: ([^\]]+))?\]", usage):
        short = re.search(r"--" + re.escape(name) + r"(?: \S+)?, -(\w)", help_text)
        options.append((name, short.group(1) if short else None, bool(metavar)))
    return options


def value(rng):
    pool = rng.choice([NUMBERS, NUMBERS, DURATIONS, WORDS])
    text = rng.choice(pool)
    roll = rng.random()
    if roll < 0.05:
        text = junk(rng, rng.randrange(1, 30))
    elif roll < 0.07:
        text = "9" * rng.randrange(100, 2000)
    elif roll < 0.09:
        text = text + "'"  # an unclosed quote
    return text


def quoted(text, rng):
    if text == "" or rng.random() < 0.3:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return text


def argument_line(rng, options):
    tokens = []
    for _ in range(rng.choice([0, 1, 1, 2, 2, 3, 4, 6])):
        roll = rng.random()
        name, short, takes_value = rng.choice(options) if options else ("out", "o", True)
        if roll < 0.55:
            flag = f"-{short}" if short and rng.random() < 0.3 else f"--{name}"
            if takes_value and rng.random() < 0.9:
                if rng.random() < 0.2 and flag.startswith("--"):
                    tokens.append(f"{flag}={value(rng)}")
                else:
                    tokens += [flag, quoted(value(rng), rng)]
            else:
                tokens.append(flag)
        elif roll < 0.65:
            tokens.append(rng.choice(["--frobnicate", "-Z", "---", "--", "-", "--=", "--out=", "-o", "--OUT"]))
        elif roll < 0.8:
            tokens.append(quoted(value(rng), rng))
        elif roll < 0.9:
            tokens.append(junk(rng, rng.randrange(1, 60)))
        else:
            # IPython's own $-expansion of magic lines is quadratic (20,000
            # characters: ~10 s here), so argument lines stay under 4,000.
            tokens.append("x" * rng.randrange(1000, 4000))
    return " ".join(tokens)


CHEAP_BODIES = ["def job(i):\n    return i\n", "x = i * i\n", "pass\n",
                "import asyncio\nasync def ajob(i):\n    return i\n",
                "def job(i):\n    return i\nasync def ajob(i):\n    return i\n",
                "s = " + repr("é" * 5000) + "\n"]


def cell_body(rng):
    roll = rng.random()
    if roll < 0.45:
        return rng.choice(CHEAP_BODIES)
    if roll < 0.55:
        return rng.choice(["", "\n", "   \n\t\n", "# only a comment\n"])
    if roll < 0.7:
        return rng.choice(["def job(i)\n    return i\n", "def job(:\n", "return\n", "    indented\n", "if True:\n",
                           "async def ajob(i):\n    yield i\n", "def job(i, j, k):\n    return i\n",
                           "job = 3\n", "def job(i):\n    return i\n" * 3 + ")"])
    if roll < 0.85:
        return junk(rng, rng.randrange(1, 400)) + "\n"
    return "x = '" + "y" * rng.randrange(10_000, 200_000) + "'\n"


def compiles(source):
    # As the cell magics compile a cell: after IPython's transformation, which drops a common indent.
    try:
        compile(textwrap.dedent(source), "<cell>", "exec")
        return True
    except (SyntaxError, ValueError):
        return False


def generated_inputs(magics, count, seed):
    rng = random.Random(seed)
    for n in range(count):
        name, kind, options = magics[n % len(magics)]
        line = argument_line(rng, options)
        if kind == "line" or (kind == "line_cell" and rng.random() < 0.5):
            yield name, f"%{name} {line}"
        else:
            yield name, f"%%{name} {line}\n{cell_body(rng)}"


@pytest.fixture(scope="module")
def registered_magics(kernel):
    listed = kernel.eval("__import__('_gillab').magics()")
    assert listed, "no magics registered"
    return [(name, kind, options_of(kernel.eval(f"__import__('_gillab').help({name!r})"))) for name, kind in listed]


def test_every_option_of_every_magic_is_seen_by_the_generator(registered_magics):
    for name, _, options in registered_magics:
        assert ("out", "o", True) in options, (name, options)


def test_generated_arguments_and_cells_never_crash_hang_or_garble(kernel, registered_magics):
    outcomes = Counter()
    slowest = (0.0, "")
    timings = []
    for n, (name, code) in enumerate(generated_inputs(registered_magics, COUNT, SEED)):
        where = f"input {n} (seed {SEED}) {code[:300]!r}"
        started = time.monotonic()
        try:
            result = kernel.execute(code, timeout=BUDGET_S)
        except TimeoutError:
            kernel.manager.interrupt_kernel()
            pytest.fail(f"no answer within {BUDGET_S} s: {where}")
        elapsed = time.monotonic() - started
        slowest = max(slowest, (elapsed, code[:120]))
        timings.append((elapsed, code[:80]))
        content = result.reply["content"]
        assert result.stream("stderr") == "", where
        if content["status"] == "ok":
            outcomes[f"{name}: result"] += 1
        elif content["ename"] == "UsageError":
            assert content["evalue"] and "\n" not in content["evalue"], where
            assert len(content["evalue"]) < 600, where
            outcomes[f"{name}: usage error"] += 1
        else:
            # Only a body that is valid Python may fail otherwise: the job's
            # own exception, with its traceback. Never the binding's errors.
            body = code.partition("\n")[2]
            assert code.startswith("%%") and compiles(body), (content["ename"], where)
            assert content["ename"] not in ("SystemError", "MemoryError"), where
            assert "Unable to cast" not in content["evalue"] and "pybind11" not in content["evalue"], where
            outcomes[f"{name}: job error"] += 1
        assert kernel.eval("1+1", timeout=BUDGET_S) == 2, where
    print(f"\nfuzz: {COUNT} inputs, seed {SEED}: {dict(sorted(outcomes.items()))}; "
          f"slowest {slowest[0]:.2f} s: {slowest[1]!r}")
    print("slowest inputs:", sorted(timings, reverse=True)[:8])
    assert sum(outcomes.values()) == COUNT
