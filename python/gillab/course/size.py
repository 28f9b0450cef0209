"""How much a lecture measures: the full size of a student's run, or the short size a grader or
the test suite asks for by starting the kernel with GILLAB_QUICK=1. Lectures call `sized` so that
no cell reads the environment itself."""

import os


def short_runs():
    """True when the kernel's environment asks for short runs (GILLAB_QUICK=1)."""
    return os.environ.get("GILLAB_QUICK") == "1"


def sized(full, short):
    """`full` in a student's run; `short` when the kernel was started for short runs."""
    return short if short_runs() else full
