"""The course articles' published figures, read from published.json.

One home for every figure the lectures, the magics and the tests quote, each
with the article it comes from and how that article measured it:

    >>> from gillab import published
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
