"""What the exercises' tests use to judge an answer by its behaviour rather than by one lucky run:
the text of a magic cell run earlier in this kernel, and dictionary keys whose hashing lets go of
the GIL, so that a lookup and the store after it can be split by another thread on any build."""

import time


def magic_cell(magic, name):
    """The text of the latest `%%magic` cell run in this kernel whose first line keeps its result
    as `-o name`; LookupError when none has run."""
    from IPython import get_ipython
    for text in reversed(get_ipython().history_manager.input_hist_raw):
        first = text.lstrip().split("\n", 1)[0]
        if first.startswith("%%" + magic) and f"-o {name}" in first:
            return text
    raise LookupError(f"no %%{magic} cell with -o {name} has run in this kernel")


def cell_body(text):
    """A cell magic's text without its magic line."""
    return text.lstrip().split("\n", 1)[1] if "\n" in text.strip() else ""


class YieldingKey(str):
    """A str whose hash and comparison first sleep for zero seconds: `time.sleep` releases the
    GIL, so every lookup or store with this key (a fresh object each time, so the dict compares)
    is a point where another thread can run, as almost every instruction is on CPython 3.9."""

    def __hash__(self):
        time.sleep(0)
        return str.__hash__(self)

    def __eq__(self, other):
        time.sleep(0)
        return str.__eq__(self, other)
