"""A list of rows as a Markdown table, the one table builder the lectures use."""

import re

from IPython.display import Markdown

# Characters Markdown would read as emphasis, links, HTML or escapes (7**500000 * 11**500000
# would come out bold); `code spans` are kept as written, so a cell may still show code.
_SPECIAL = re.compile(r"([\\*_\[\]<>~#])")
_CODE_SPAN = re.compile(r"(`[^`]*`)")


def _escaped(text):
    parts = _CODE_SPAN.split(text)
    return "".join(part if _CODE_SPAN.fullmatch(part) else _SPECIAL.sub(r"\\\1", part) for part in parts)


def _cell(value, digits):
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return _escaped(str(value)).replace("|", "\\|").replace("\n", " ")


def table(columns, rows, digits=3):
    """Markdown for `rows` (sequences of cells) under `columns` (headers). A header ending in
    ':' is right-aligned (the colon is dropped); floats get `digits` decimals (one number, or one
    per column), None an empty cell."""
    per_column = list(digits) if isinstance(digits, (list, tuple)) else [digits] * len(columns)
    heads = [_escaped(c[:-1] if c.endswith(":") else c) for c in columns]
    rules = ["---:" if c.endswith(":") else "---" for c in columns]
    lines = ["| " + " | ".join(heads) + " |", "| " + " | ".join(rules) + " |"]
    for row in rows:
        if len(row) != len(columns):
            raise ValueError(f"a row has {len(row)} cells for {len(columns)} columns: {row!r}")
        lines.append("| " + " | ".join(_cell(v, d) for v, d in zip(row, per_column)) + " |")
    return Markdown("\n".join(lines))
