"""gillab.magics.manuals on its own: a manual is cut into its paragraphs, and each paragraph is
translated by the catalog of the first language gettext's variables ask for, or stays English."""

import pytest

from catalogs import LANGUAGE_VARIABLES, compile_catalog
from gillab.magics import manuals

ENGLISH = "Measure the GIL.\n\n  %%magic   run the cell\n  %magic    once\n\nThe result object."


@pytest.fixture
def no_language(monkeypatch):
    for variable in LANGUAGE_VARIABLES + (manuals.LOCALEDIR_VARIABLE,):
        monkeypatch.delenv(variable, raising=False)
    return monkeypatch


@pytest.fixture
def localedir(tmp_path):
    return compile_catalog(tmp_path, "ru", {"Measure the GIL.": "Измерить GIL.", "The result object.": "Объект результата."})


def test_paragraphs_are_the_blank_line_separated_blocks_with_their_first_line():
    text = "\nFirst line\nsecond line\n\n   \n  indented\n\nlast\n"
    assert manuals.paragraphs(text) == [(2, "First line\nsecond line"), (6, "  indented"), (8, "last")]


def test_each_paragraph_the_catalog_holds_is_translated_and_the_rest_stays_english(no_language, localedir):
    no_language.setenv("LANGUAGE", "ru")
    assert manuals.translated(ENGLISH, str(localedir)) == \
        "Измерить GIL.\n\n  %%magic   run the cell\n  %magic    once\n\nОбъект результата."


@pytest.mark.parametrize("variables", [{"LANG": "ru_RU.UTF-8"}, {"LC_MESSAGES": "ru_RU.UTF-8", "LANG": "C.UTF-8"},
                                       {"LC_ALL": "ru_RU.UTF-8", "LANG": "de_DE.UTF-8"},
                                       {"LANGUAGE": "de:ru", "LANG": "C"}],
                         ids=["LANG", "LC_MESSAGES over LANG", "LC_ALL over LANG", "LANGUAGE's second choice"])
def test_the_language_is_the_first_gettext_variable_set(no_language, localedir, variables):
    for variable, value in variables.items():
        no_language.setenv(variable, value)
    assert manuals.translated(ENGLISH, str(localedir)).startswith("Измерить GIL.")


@pytest.mark.parametrize("variables", [{}, {"LANG": "C.UTF-8"}, {"LANGUAGE": "de", "LANG": "ru_RU.UTF-8"}],
                         ids=["none", "the C locale", "LANGUAGE over LANG"])
def test_without_a_catalog_for_the_language_the_manual_is_english(no_language, localedir, variables):
    for variable, value in variables.items():
        no_language.setenv(variable, value)
    assert manuals.translated(ENGLISH, str(localedir)) == ENGLISH


def test_gillab_localedir_replaces_the_installed_catalogs(no_language, localedir, tmp_path):
    no_language.setenv("LANGUAGE", "ru")
    no_language.setenv(manuals.LOCALEDIR_VARIABLE, str(localedir))
    assert manuals.translated(ENGLISH, str(tmp_path / "installed")).startswith("Измерить GIL.")


def test_a_broken_catalog_gives_one_line_saying_so_then_the_english_manual(no_language, tmp_path):
    folder = tmp_path / "ru" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / f"{manuals.DOMAIN}.mo").write_bytes(b"not a catalog")
    no_language.setenv("LANGUAGE", "ru")
    text = manuals.translated(ENGLISH, str(tmp_path))
    note, rest = text.split("\n\n", 1)
    assert note.startswith(f"(the {manuals.DOMAIN} catalog in {tmp_path} is unreadable: ")
    assert "\n" not in note and rest == ENGLISH
