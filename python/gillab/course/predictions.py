"""The student's guess, written down before a measurement, beside what this
machine measured and what was published."""

from . import published as _published


def _text(value, unit):
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "%":
        return f"{value:.1f}%"
    if abs(value) >= 100:
        return f"{value:,.0f} {unit}"
    return f"{value:.3g} {unit}"


class Comparison:
    """The guess, the measurement and the published figure, with a generated verdict.
    Displays as one line of Markdown, the measurement and the published figure shown whether
    or not a guess was set; `close` says whether the guess was within `tolerance` (a fraction
    of the measurement; points for '%'), None without a guess."""

    def __init__(self, what, guess, measured, published, unit, tolerance, cite):
        self.what, self.guess, self.measured, self.published = what, guess, measured, published
        self.unit, self.tolerance, self.cite = unit, tolerance, cite
        if guess is None:
            self.close = None
        elif unit == "%":
            self.close = abs(guess - measured) <= 100 * tolerance
        else:
            self.close = abs(guess - measured) <= tolerance * max(abs(measured), 1e-12)

    def verdict(self):
        if self.guess is None:
            return "No guess was set (the prediction cell above still holds None); the figures are shown anyway."
        if self.close:
            return f"Your guess, {_text(self.guess, self.unit)}, was close."
        direction = "high" if self.guess > self.measured else "low"
        return f"Your guess, {_text(self.guess, self.unit)}, was too {direction}: what did your model leave out?"

    def sentence(self):
        text = f"**{self.what}**: measured here {_text(self.measured, self.unit)}"
        if self.published is not None:
            text += f"; published {_text(self.published, self.unit)}"
            if self.cite:
                text += f" ({self.cite})"
        return text + ". " + self.verdict()

    def _repr_markdown_(self):
        return self.sentence()

    def __repr__(self):
        return self.sentence().replace("**", "")


def compare(what, guess, measured, published=None, *, figure=None, unit="x", tolerance=0.25):
    """A `Comparison` of the student's `guess` with the `measured` value and the `published`
    one. `figure` names the published.json entry the published value comes from, for the
    citation. `unit` is 'x' (a ratio), '%' or a unit name such as 'ms'."""
    return Comparison(what, guess, float(measured), None if published is None else float(published), unit,
                      tolerance, _published.cite(figure, short=True) if figure else None)
