"""gillab: magics that measure how CPython's GIL shapes threads, processes and asyncio.

Importing the package imports nothing else, so each part loads only what it serves:
gillab.kernel (the kernel's Python half: its start, shell changes, debugger), gillab.extension
(the native magics introduced to IPython), gillab.runners (the measuring loops, the same in the
kernel and in child interpreters, and the process-tree walk the grader uses too),
gillab.course (the lectures' helpers and published figures), gillab.results (the magics'
result objects), gillab.magics (the native magics' Python helpers, in the kernel only) and
gillab.preset_jobs (%%gilbench --preset's jobs).
"""

__all__ = ["load_ipython_extension", "Result"]


def load_ipython_extension(shell):
    """`%load_ext gillab`: registers the native magics in `shell`."""
    from gillab import extension
    extension.load_ipython_extension(shell)


def __getattr__(name):
    # gillab.Result without loading the result classes for every import of a submodule.
    if name == "Result":
        from gillab.results import Result
        return Result
    raise AttributeError("module 'gillab' has no attribute %r" % name)
