"""A tiny gettext catalog of the manuals' domain, compiled by msgfmt at test time, for the tests
of the translated manuals (tests/python/magics/test_manuals.py, tests/kernel/test_manuals.py)."""

import subprocess

DOMAIN = "gillab-manuals"
# gettext's variables, in its order; a test sets the ones it means and clears the rest.
LANGUAGE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


def po_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def compile_catalog(localedir, language, translations):
    """localedir/LANGUAGE/LC_MESSAGES/gillab-manuals.mo holding `translations` (English
    paragraph -> its text); returns localedir."""
    entries = ['msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n']
    entries += [f"msgid {po_string(english)}\nmsgstr {po_string(text)}\n" for english, text in translations.items()]
    po = localedir / f"{language}.po"
    po.write_text("\n".join(entries), encoding="utf-8")
    folder = localedir / language / "LC_MESSAGES"
    folder.mkdir(parents=True)
    subprocess.run(["msgfmt", "--check", "-o", str(folder / f"{DOMAIN}.mo"), str(po)], check=True)
    return localedir
