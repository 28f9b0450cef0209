"""The long C calls the articles name, each run once inside %%heartbeat (its data built before): how long the call
took, and the longest wait of the kernel's native probe for the GIL meanwhile. A call that
holds the GIL keeps the probe out for about its whole length, whatever the switch interval."""

from .tables import table

# label: (set-up, the one call), names starting with _ so that no notebook variable is touched;
# sizes as published where an article gave one.
CALLS = {
    "one multiply 7**500000 * 11**500000 (as published)": ("_A = 7 ** 500_000\n_B = 11 ** 500_000", "_A * _B"),
    "sorted() of {n:,} floats": ("import random\n_DATA = [random.random() for _ in range({n})]", "sorted(_DATA)"),
    "a regex that backtracks: (a+)+$ on {k} a's and a b": ("import re\n_PATTERN = re.compile(r'(a+)+$')\n_TEXT = 'a' * {k} + 'b'",
                                                          "_PATTERN.match(_TEXT)"),
    "pickle.loads of {m:,} small dicts": ("import pickle\n_BLOB = pickle.dumps([{{'k': i, 'v': str(i)}} for i in range({m})])",
                                          "pickle.loads(_BLOB)"),
    "json.dumps of {m:,} small dicts": ("import json\n_ITEMS = [{{'k': i, 'v': str(i)}} for i in range({m})]", "json.dumps(_ITEMS)"),
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
        body = "import time as _time\n_started = _time.perf_counter()\n" + call + "\n_gillab_call_s = _time.perf_counter() - _started\n"
        result = shell.run_cell_magic("heartbeat", "", body)
        for name in ("_A", "_B", "_DATA", "_PATTERN", "_TEXT", "_BLOB", "_ITEMS"):
            shell.user_ns.pop(name, None)  # the data of one call is not kept in the notebook
        found[label.format(**sizes)] = {"call_ms": 1000 * shell.user_ns.pop("_gillab_call_s"),
                                        "max_gil_wait_ms": max(result.gil_waits(), default=0.0)}
    return found


def calls_table(found):
    return table(["one call", "it took (ms):", "longest wait for the GIL meanwhile (ms):"],
                 [(label, f["call_ms"], f["max_gil_wait_ms"]) for label, f in found.items()], digits=1)
