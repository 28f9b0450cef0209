"""The one error a runner raises for a cell or request it cannot measure as written. The kernel
(framework/runner's run_task) and a child (child.py) turn it into a one-line UsageError naming
the magic; any other exception is the magic's own failure, shown with its traceback.
Standard library only, CPython 3.8+."""


class CellError(ValueError):
    """The cell or request cannot be measured as written; the message is one line for the student."""
