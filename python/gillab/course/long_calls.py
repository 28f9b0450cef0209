"""Single C calls long enough to matter, each run once inside %%heartbeat with its data built
beforehand: the call's own time, and the longest the kernel's native probe waited for the GIL
meanwhile. The interpreter checks for a drop request only between instructions, so a call that
keeps the GIL keeps the probe out for about as long as it runs, at any switch interval."""

from .tables import table

# label: (set-up, the one call), names starting with _ so that no notebook variable is touched;
# sizes as published where an article gave one.
CALLS = {
    "one multiply 7**500000 * 11**500000 (as published)":
        ("_FACTORS = (7 ** 500_000, 11 ** 500_000)", "_FACTORS[0] * _FACTORS[1]"),
    "sorted() of {n:,} floats": ("import random\n_DATA = [random.random() for _ in range({n})]", "sorted(_DATA)"),
    "a regex that backtracks: (a+)+$ on {k} a's and a b":
        ("import re\n_PATTERN = re.compile(r'(a+)+$')\n_TEXT = 'a' * {k} + 'b'", "_PATTERN.match(_TEXT)"),
    "pickle.loads of {m:,} small dicts":
        ("import pickle\n_BLOB = pickle.dumps([{{'k': i, 'v': str(i)}} for i in range({m})])", "pickle.loads(_BLOB)"),
    "json.dumps of {m:,} small dicts":
        ("import json\n_ITEMS = [{{'k': i, 'v': str(i)}} for i in range({m})]", "json.dumps(_ITEMS)"),
}


def measure(n=2_000_000, k=20, m=300_000):
    """{label: {"call_ms", "max_gil_wait_ms"}} for each call, at sorted size `n`, regex length `k`
    and `m` items to pickle or dump."""
    from IPython import get_ipython
    shell = get_ipython()
    found = {}
    for label, (setup, call) in CALLS.items():
        sizes = {"n": n, "k": k, "m": m}
        shell.ex(setup.format(**sizes))  # before the probe starts: building the data is not the call
        body = ("import time as _time\n_started = _time.perf_counter()\n" + call
                + "\n_gillab_call_s = _time.perf_counter() - _started\n")
        result = shell.run_cell_magic("heartbeat", "", body)
        for name in ("_FACTORS", "_DATA", "_PATTERN", "_TEXT", "_BLOB", "_ITEMS"):
            shell.user_ns.pop(name, None)  # the data of one call is not kept in the notebook
        found[label.format(**sizes)] = {"call_ms": 1000 * shell.user_ns.pop("_gillab_call_s"),
                                        "max_gil_wait_ms": max(result.gil_waits(), default=0.0)}
    return found


def calls_table(found):
    return table(["one call", "it took (ms):", "longest wait for the GIL meanwhile (ms):"],
                 [(label, f["call_ms"], f["max_gil_wait_ms"]) for label, f in found.items()], digits=1)


def published_design(python, exponent=500_000, python_s=1.0, multiply_s=4.0, interval_ms=5.0):
    """The Russian article's design, in a fresh `python` (child_scripts/long_call_wait.py): the
    yielding probe's waits at `interval_ms`, beside a pure-Python loop for `python_s`, then beside
    a thread computing 7**exponent * 11**exponent again and again for `multiply_s`. Its figures,
    or None when the child gave no answer."""
    from .children import run_json
    return run_json(python, "long_call_wait", exponent, python_s, multiply_s, interval_ms,
                    timeout=60 + 3 * (python_s + multiply_s))


def published_design_table(found, exponent):
    """{python: published_design figures} as rows beside the published ones (median ratio, worst
    wait, worst / interval); interpreters that gave no answer are left out."""
    from . import published
    fig = published.figure("long_c_op")
    rows = []
    for python, f in found.items():
        if not f:
            continue
        py, mul = f["python"], f["multiply"]
        rows += [(python, f"Python arithmetic ({py['waits']:,} waits)", py["median_ms"], py["worst_ms"], None, None),
                 (python, f"7**{exponent:,} x 11**{exponent:,}, {f['multiply_ms']:.0f} ms each ({mul['waits']:,} waits)",
                  mul["median_ms"], mul["worst_ms"], f"x{mul['median_ms'] / py['median_ms']:.3g}",
                  f"x{mul['worst_ms'] / f['interval_ms']:.0f}")]
    rows.append((f"published ({published.cite('long_c_op', short=True)})", "7**500,000 x 11**500,000", None,
                 fig["worst_ms"], f"x{fig['median_ratio']}", f"x{fig['worst_over_interval']}"))
    return table(["interpreter", f"beside the probe, at {fig['interval_ms']} ms", "median wait (ms):", "worst wait (ms):",
                  "median against beside Python:", "worst / interval:"], rows, digits=3)
