"""multiprocessing's start method, read without fixing it. get_start_method() and
get_context() with no name both fix the default for the rest of the process, after which a
student's own set_start_method() raises "context has already been set"; a magic must leave
that choice to her."""

import contextlib
import multiprocessing


def current():
    """The method a process pool would use now: the one the program chose, else the platform's
    default (documented as the first of get_all_start_methods())."""
    return multiprocessing.get_start_method(allow_none=True) or multiprocessing.get_all_start_methods()[0]


def context(requested=None):
    """The multiprocessing context for `requested` (a method name, or None for current())."""
    return multiprocessing.get_context(requested or current())


@contextlib.contextmanager
def left_unchosen():
    """Starting a spawn or forkserver pool fixes the default context as a side effect (the
    preparation data sent to each child reads get_start_method()); if the program had not chosen
    a method before, it has not chosen one after either."""
    chosen = multiprocessing.get_start_method(allow_none=True)
    try:
        yield
    finally:
        if chosen is None and multiprocessing.get_start_method(allow_none=True) is not None:
            multiprocessing.set_start_method(None, force=True)
