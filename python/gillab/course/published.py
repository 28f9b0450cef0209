"""The course articles' published figures, read from published.json.

One home for every figure the lectures, the magics and the tests quote, each
with the article it comes from and how that article measured it:

    >>> from gillab.course import published
    >>> published.figure("pool_startup")["wall_s"]
    0.099
    >>> published.cite("pool_startup")
    '"Python GIL: Threads vs Processes vs asyncio, Measured": CPython 3.9.6, ...'
"""

import functools
import json
import pathlib

PATH = pathlib.Path(__file__).with_name("published.json")


@functools.lru_cache(maxsize=None)
def _data():
    return json.loads(PATH.read_text(encoding="utf-8"))


def names():
    """The names of every published figure, in the file's order."""
    return list(_data()["figures"])


def figure(name):
    """The published figure `name` (a dict, as stored); KeyError names the valid ones."""
    figures = _data()["figures"]
    if name not in figures:
        raise KeyError(f"no published figure {name!r}; known: {', '.join(figures)}")
    return figures[name]


def source(name):
    """The article behind figure `name`: title, publisher, file and setup."""
    return _data()["sources"][figure(name)["source"]]


def cite(name, short=False):
    """One line naming where figure `name` was published and how it was measured; with
    short=True only the interpreter and machine, such as '3.9.6, M1 Pro'."""
    article = source(name)
    if short:
        return article["short"]
    return f"\"{article['title']}\": {article['setup']}"


# ---- what each native magic shows beside its own measurement -------------------------------

def _n(value):
    return f"{value:,}"


def _gilbench():
    cpu, io, sleeps, zlib, startup = (figure(n) for n in ("cpu_pools", "io_waits", "sleeps", "zlib", "pool_startup"))
    scaling_io = figure("thread_scaling_io")

    def row(mode, workers, jobs, wall_s=None, speedup=None, peak_rss_mb=None):
        return {"mode": mode, "workers": str(workers), "jobs": jobs, "wall_s": wall_s, "speedup": speedup,
                "peak_rss_mb": peak_rss_mb}

    lecture5 = f"\"{source('cpu_pools')['title']}\" (course lecture 5): CPython 3.9.6, Apple M1 Pro (6P+2E cores), macOS"
    russian = f"\"the thread waits as long as you asked\" (course, Russian article): {source('sleeps')['setup'].split(',')[0]}" \
              ", Linux x86_64, 2 cores"
    io_rows = []
    for n, walls in io["wall_s"].items():
        for key, wall in walls.items():
            mode, workers = {"sequential": ("sequential", "1"), "threads-default": ("threads", "default"),
                             "threads-per-job": ("threads", "per-job"), "asyncio": ("asyncio", "per-job")}[key]
            io_rows.append(row(mode, workers, int(n), wall, peak_rss_mb=io["peak_rss_mb"].get(n, {}).get(key)))
    threshold = figure("hashlib_threshold")["bytes"]
    hashlib_source = f"{russian}; the threshold is HASHLIB_GIL_MINSIZE = {threshold} bytes per call (no timings published)"
    return {
        "cpu": {"source": f"{lecture5}, {cpu['start_method']}, median of 5",
                "rows": [row(mode, w, cpu["jobs"], wall) for mode, walls in cpu["wall_s"].items() for w, wall in walls.items()]},
        "io": {"source": f"{lecture5}, median of 5; the default pool there had min(32, 8+4) = "
                         f"{io['default_pool_workers']} workers; peak RSS from getrusage", "rows": io_rows},
        "sleep": {"source": f"{russian}; x{scaling_io['speedup']['8']:.2f} with 8 threads in "
                            f"\"{source('thread_scaling_io')['title']}\" "
                            f"(3.13.2, macOS, 12 cores, {scaling_io['sleep_s']:g} s sleeps)",
                  "rows": [row("sequential", 1, sleeps["sleeps"], sleeps["sequential_s"]),
                           row("threads", 8, sleeps["sleeps"], sleeps["threads_s"], sleeps["speedup"])]},
        "zlib": {"source": f"{russian}; one {_n(zlib['bytes'])}-byte buffer per thread",
                 "rows": [row("sequential", 1, 1, zlib["one_s"]), row("threads", 2, 2, zlib["two_s"], zlib["speedup"])]},
        "hashlib-small": {"source": hashlib_source, "rows": []},
        "hashlib-large": {"source": hashlib_source, "rows": []},
        "startup": {"source": f"{lecture5}, spawn, median of 5",
                    "rows": [row("processes", startup["workers"], startup["workers"], startup["wall_s"])]},
    }


def _switchinterval():
    dial, probe, owner, long_c = (figure(n) for n in ("latency_dial", "yield_probe", "ownership", "long_c_op"))
    medians = [{"probe": "sleep", "interval_s": float(k[:-2]) / 1000, "median_ms": v["median_ms"]}
               for k, v in dial["rows"].items()]
    medians += [{"probe": "yield", "interval_s": float(k[:-2]) / 1000, "median_ms": v["median_ms"]}
                for k, v in probe["rows"].items() if "median_ms" in v]

    def listing(rows, key):
        return " / ".join(f"{v[key]:g}" for v in rows.values())

    return {
        "medians": medians, "median_slice_ms": owner["median_ms"],
        "sleep_note": (f"published (sleep probe): '{source('latency_dial')['title']}', CPython 3.13.2 on darwin, 12 cores: "
                       f"{listing(dial['rows'], 'median_ms')} ms late at {' / '.join(k[:-2] for k in dial['rows'])} ms, "
                       f"spinner rate {' / '.join(f'{v:.2f}' for v in (r['spin_rate'] for r in dial['rows'].values()))}x."),
        "yield_note": ("published (time.sleep(0) probe): Russian GIL article, CPython 3.13.7, Linux x86_64, 2 cores: "
                       + ", ".join(f"{v['median_ms']:g} ms at {k[:-2]} ms" for k, v in probe["rows"].items() if "median_ms" in v)
                       + "."),
        "long_c_note": (f"published (long C call): a big-int multiply made the time.sleep(0) probe {long_c['median_ratio']}x "
                        f"later at the median and {long_c['worst_over_interval']}x the {long_c['interval_ms']} ms interval "
                        f"({long_c['worst_ms']:.0f} ms) at worst, interval unchanged (CPython 3.13.7, Linux x86_64, 2 cores)."),
        "timeline_note": (f"published: median turn {owner['median_ms']:g} ms at 5 ms with one {owner['longest_ms']:g} ms "
                          "double turn (Russian GIL article, CPython 3.13.7, Linux x86_64, 2 cores)."),
    }


def _heartbeat():
    hb = figure("heartbeat")
    rows = hb["rows"]
    return {"note": (f"published ({hb['period_ms']} ms heartbeat, a {hb['wait_s']} s handler; Python 3.9.6, Apple M1 Pro): "
                     f"time.sleep max gap {rows['time.sleep']['max_gap_ms']} ms, {rows['time.sleep']['ticks']} ticks; "
                     f"asyncio.sleep {rows['asyncio.sleep']['max_gap_ms']} ms, {rows['asyncio.sleep']['ticks']} ticks; "
                     f"asyncio.to_thread {rows['to_thread']['max_gap_ms']} ms, {rows['to_thread']['ticks']} ticks.")}


def _race():
    race = figure("race")
    f39, f311 = race["final"]["3.9.6"], race["final"]["3.11.4"]
    low, high = race["lost_percent_range"]
    (u0, u1), (l0, l1) = race["lock_wall_s"]["unlocked"], race["lock_wall_s"]["lock"]
    return {
        "note": (f"published (Python 3.9.6, Apple M1 Pro; 3.11.4 under Rosetta 2): {race['threads']} threads x "
                 f"{_n(race['iterations'])} counter += 1 ended at {' / '.join(_n(n) for n in f39['in-place'])} of "
                 f"{_n(race['expected'])} on 3.9 ({low}-{high}% lost) and at {_n(f311['in-place'][0])} on 3.11; with a call "
                 f"between read and write (counter = one_more(counter)) 3.9 ended at {_n(f39['call'][0])} and 3.11 at "
                 f"{_n(f311['call'][0])} of {_n(race['expected'])}; the Lock cost {u0}-{u1} s unlocked vs {l0:.2f}-{l1:.2f} s "
                 "locked on 3.9."),
        "chart_rules": [[f"published 3.9: {low}% lost", float(low)], [f"published 3.9: {high}% lost", float(high)]],
        "data": {"source": f"{source('race')['title']} (lecture 5)",
                 "machine": "Apple M1 Pro; 3.9.6 native, 3.11.4 under Rosetta 2",
                 "threads": race["threads"], "iterations": race["iterations"], "expected": race["expected"],
                 "got_3_9": f39["in-place"], "lost_percent_3_9": [low, high], "got_3_11": f311["in-place"],
                 "got_with_call_3_9": f39["call"][0], "got_with_call_3_11": f311["call"][0],
                 "wall_unlocked_s_3_9": [u0, u1], "wall_locked_s_3_9": [l0, l1]},
    }


_MAGICS = {"gilbench": _gilbench, "switchinterval": _switchinterval, "heartbeat": _heartbeat, "race": _race}


def for_magic(name):
    """What the native magic `name` shows beside its own measurement (notes, figures, chart
    rules), built from published.json: the magics read the published figures from here."""
    if name not in _MAGICS:
        raise KeyError(f"no published figures for %{name}; known: {', '.join(_MAGICS)}")
    return _MAGICS[name]()
