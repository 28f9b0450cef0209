"""share/locale: the template (gillab-manuals.pot) is made from share/manuals as they are, and
every translation (share/locale/LANG/gillab-manuals.po) is a valid catalog merged with it."""

import glob
import os
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
POT = os.path.join(REPO, "share", "locale", "gillab-manuals.pot")
CATALOGS = sorted(glob.glob(os.path.join(REPO, "share", "locale", "*", "gillab-manuals.po")))
LANGUAGES = [os.path.basename(os.path.dirname(po)) for po in CATALOGS]


def test_the_template_holds_the_manual_files_as_they_are():
    check = subprocess.run(["/usr/bin/python3", "tools/manuals-pot", "--check"], cwd=REPO,
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def test_a_russian_catalog_is_shipped():
    assert "ru" in LANGUAGES


@pytest.mark.parametrize("po", CATALOGS, ids=LANGUAGES)
def test_each_catalog_passes_msgfmt_check(po):
    check = subprocess.run(["msgfmt", "--check", "--statistics", "-o", os.devnull, po], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    assert "warning" not in check.stderr, check.stderr


@pytest.mark.parametrize("po", CATALOGS, ids=LANGUAGES)
def test_each_catalog_has_the_templates_messages_and_no_others(po):
    # msgcmp DEF REF: every message of REF is in DEF; run both ways. Untranslated ones count.
    for definitions, references in ((po, POT), (POT, po)):
        compare = subprocess.run(["msgcmp", "--use-untranslated", "--use-fuzzy", definitions, references],
                                 capture_output=True, text=True)
        assert compare.returncode == 0, \
            f"{compare.stderr}run: msgmerge --update --no-wrap {os.path.relpath(po, REPO)} share/locale/gillab-manuals.pot"
