"""Lines of a cell as the student counts them: the %%magic line is line 1."""


def line_of(cell, marker):
    """The number of the first line of `cell` holding `marker`."""
    return next(n for n, text in enumerate(cell.splitlines(), 1) if marker in text)
