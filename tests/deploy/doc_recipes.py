"""The recipes of docs/instructors.md, as the tests that follow them literally read them."""

import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def block(language, containing):
    """The docs/instructors.md code block in language (sh, yaml, python) that contains a text."""
    with open(os.path.join(REPO, "docs", "instructors.md")) as f:
        blocks = re.findall(rf"```{language}\n(.*?)```", f.read(), re.S)
    found = [b for b in blocks if containing in b]
    if len(found) != 1:
        raise LookupError(f"expected one {language} block with {containing!r} in docs/instructors.md, found {len(found)}")
    return found[0]
