"""The student's guess, written down before a measurement, beside what this
machine measured and what was published."""

from . import published as _published
from .tables import table as _table

# Every comparison shown in this kernel, by what it compares (a cell run again replaces its own).
_shown = {}


def _text(value, unit):
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "%":
        return f"{value:.1f}%"
    if abs(value) >= 100:
        return f"{value:,.0f} {unit}"
    return f"{value:.3g} {unit}"


def _text_or_none(value, unit):
    return "nothing" if value is None else _text(value, unit)


class Comparison:
    """The guess, the measurement and the published figure, with a generated verdict.
    Displays as one line of Markdown, the measurement and the published figure shown whether
    or not a guess was set; `close` says whether the guess was within `tolerance` (a fraction
    of the measurement; points for '%'), None without a guess or without a measurement (`measured`
    None: the run produced no figure, which the sentence says instead of failing)."""

    def __init__(self, what, guess, measured, published, unit, tolerance, cite, reason=None):
        self.what, self.guess, self.measured, self.published = what, guess, measured, published
        self.unit, self.tolerance, self.cite, self.reason = unit, tolerance, cite, reason
        if guess is None or measured is None:
            self.close = None
        elif unit == "%":
            self.close = abs(guess - measured) <= 100 * tolerance
        else:
            self.close = abs(guess - measured) <= tolerance * max(abs(measured), 1e-12)

    def verdict(self):
        if self.measured is None:
            return "This run measured nothing to hold a guess against (the output above says why): run it again."
        if self.guess is None:
            return "No guess was set (the prediction cell above still holds None); the figures are shown anyway."
        if self.close:
            return f"Your guess, {_text(self.guess, self.unit)}, was close."
        direction = "high" if self.guess > self.measured else "low"
        return f"Your guess, {_text(self.guess, self.unit)}, was too {direction}: what did your model leave out?"

    def off_by(self):
        """How far the guess was: points for '%', otherwise guess over measurement; None without one."""
        if self.guess is None:
            return None
        if self.measured is None:
            return "not measured"
        if self.unit == "%":
            return f"{self.guess - self.measured:+.1f} points"
        if self.measured == 0:
            return "measured 0"
        return f"x{self.guess / self.measured:.2f} of the measurement"

    def sentence(self):
        text = f"**{self.what}**: measured here {_text_or_none(self.measured, self.unit)}"
        if self.published is not None:
            text += f"; published {_text(self.published, self.unit)}"
            if self.cite:
                text += f" ({self.cite})"
        text += ". " + self.verdict()
        if self.guess is not None:
            text += f" Your reason: {self.reason}" if self.reason else " You gave no reason (the why_ line above)."
        return text

    def _repr_markdown_(self):
        return self.sentence()

    def __repr__(self):
        return self.sentence().replace("**", "")


def compare(what, guess, measured, published=None, *, figure=None, unit="x", tolerance=0.25, reason=None):
    """A `Comparison` of the student's `guess` (and the one-line `reason` she gave for it) with the
    `measured` value and the `published` one. `figure` names the published.json entry the published
    value comes from, for the citation. `unit` is 'x' (a ratio), '%' or a unit name such as 'ms'.
    Each comparison is kept for `calibration()`."""
    def number(value):
        return None if value is None else float(value)

    shown = Comparison(what, guess, number(measured), number(published), unit, tolerance,
                       _published.cite(figure, short=True) if figure else None, reason)
    _shown[what] = shown
    return shown


def calibration():
    """Every comparison shown in this kernel, in order: the guess, the measurement, how far the
    guess was and the reason given, as a Markdown table."""
    if not _shown:
        return _table(["prediction"], [["(no comparison has been shown in this kernel yet)"]])
    rows = [[c.what, "-" if c.guess is None else _text(c.guess, c.unit), _text_or_none(c.measured, c.unit),
             c.off_by() or "no guess", c.reason or "-"] for c in _shown.values()]
    return _table(["prediction", "your guess", "measured here", "how far", "your reason"], rows)
