"""Each magic's manual in the reader's language. The English manual (share/manuals/NAME.txt,
read by magics/manual.cpp) is translated paragraph by paragraph through the gettext catalog
DOMAIN (PREFIX/share/locale/LANG/LC_MESSAGES/gillab-manuals.mo, compiled from
share/locale/LANG/gillab-manuals.po); a paragraph the catalog lacks stays English.

Standard library only: tools/manuals-pot imports this file from the source tree to cut the
manuals into the same paragraphs (the catalog's messages)."""

import gettext
import os

DOMAIN = "gillab-manuals"
# Where a catalog under work can be tried without installing it (docs/magics.md).
LOCALEDIR_VARIABLE = "GILLAB_LOCALEDIR"


def paragraphs(text):
    """The (first line number, paragraph) of each blank-line separated block of `text`: the
    messages of the catalog."""
    found, block, start = [], [], 0
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            if not block:
                start = number
            block.append(line)
        elif block:
            found.append((start, "\n".join(block)))
            block = []
    if block:
        found.append((start, "\n".join(block)))
    return found


def translated(text, localedir):
    """`text` with each paragraph in the first language of LANGUAGE, LC_ALL, LC_MESSAGES, LANG
    (gettext's order) that has a catalog in `localedir` (or in $GILLAB_LOCALEDIR)."""
    localedir = os.environ.get(LOCALEDIR_VARIABLE) or localedir
    try:
        catalog = gettext.translation(DOMAIN, localedir, fallback=True)
    except Exception as error:  # a broken catalog must not take the magics' help with it
        return (f"(the {DOMAIN} catalog in {localedir} is unreadable: {error}; the manual is English)\n\n"
                + "\n\n".join(p for _, p in paragraphs(text)))
    return "\n\n".join(catalog.gettext(p) for _, p in paragraphs(text))
