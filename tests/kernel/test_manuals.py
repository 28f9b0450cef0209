"""Each magic's manual over the protocol: `%NAME?` pages the text of share/manuals/NAME.txt (the
one file docs/magics.md is made from), then the magic's options; in the language the kernel's
environment asks for, paragraph by paragraph, where a catalog of share/locale translates it."""

import gettext
import os
import re

import pytest

from catalogs import LANGUAGE_VARIABLES, compile_catalog
from conftest import BUILD_DIR, Kernel

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MANUALS = os.path.join(REPO, "share", "manuals")
INSTALLED_RUSSIAN = os.path.join(BUILD_DIR, "prefix", "share", "locale", "ru", "LC_MESSAGES", "gillab-manuals.mo")
CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)
MAGICS = {"gilinfo": "%gilinfo?", "gilbench": "%%gilbench?", "race": "%%race?",
          "switchinterval": "%switchinterval?", "heartbeat": "%%heartbeat?", "gilwatch": "%%gilwatch?"}


def page(kernel, code):
    result = kernel.ok(code)
    pages = [p for p in result.reply["content"]["payload"] if p.get("source") == "page"]
    assert pages, f"{code} paged nothing"
    return pages[0]["data"]["text/plain"]


def manual_lines(name):
    """The file's lines as the page shows them; a {KEY} line is filled by the magic, so only its
    text around the key is known here."""
    with open(os.path.join(MANUALS, name + ".txt"), encoding="utf-8") as f:
        lines = [line.strip() for line in f.read().splitlines()]
    return [piece.strip() for line in lines for piece in re.split(r"\{\w+\}", line) if piece.strip()]


def test_every_manual_file_belongs_to_a_magic():
    assert sorted(f[:-4] for f in os.listdir(MANUALS) if f.endswith(".txt")) == sorted(MAGICS)


@pytest.mark.parametrize("name", sorted(MAGICS))
def test_question_mark_pages_the_manual_file_then_the_options(kernel, name):
    text = page(kernel, MAGICS[name])
    shown = [line.strip() for line in text.splitlines()]
    for line in manual_lines(name):
        assert any(line in s for s in shown), f"%{name}? lacks the manual's line {line!r}"
    assert "not installed" not in text
    assert text.index(manual_lines(name)[-1]) < text.index("\nOptions:"), "the options follow the manual"


def test_gilbench_manual_lists_every_preset_with_its_options(kernel):
    text = page(kernel, "%%gilbench?")
    presets = re.findall(r"^\s*%gilbench --preset ([\w-]+)\n\s+.+\n\s+= (--.+)$", text, re.MULTILINE)
    names = [name for name, _ in presets]
    assert {"cpu", "io", "sleep", "zlib", "hashlib-small", "hashlib-large", "startup"} <= set(names)
    assert dict(presets)["io"].startswith("--modes threads,asyncio")


def kernel_environment(**variables):
    """The test run's environment with no language but `variables`."""
    env = {k: v for k, v in os.environ.items() if k not in LANGUAGE_VARIABLES + ("GILLAB_LOCALEDIR",)}
    env.update(variables)
    return env


def paged_in(variables, code="%gilinfo?"):
    kernel = Kernel(env=kernel_environment(**variables))
    try:
        return page(kernel, code)
    finally:
        kernel.shutdown()


def manual_paragraphs(name):
    with open(os.path.join(MANUALS, name + ".txt"), encoding="utf-8") as f:
        return [p.strip("\n") for p in f.read().split("\n\n") if p.strip()]


def shows(text, paragraph):
    """Every line of `paragraph` is on a line of the page (which may indent it)."""
    shown = [line.strip() for line in text.splitlines()]
    return all(any(line.strip() in s for s in shown) for line in paragraph.splitlines() if line.strip())


@pytest.mark.parametrize("variables", [{"LANGUAGE": "ru"}, {"LANG": "ru_RU.UTF-8"}, {"LANGUAGE": "ru", "LANG": "C.UTF-8"}],
                         ids=["LANGUAGE", "LANG, a locale not installed", "LANGUAGE under the C locale"])
def test_question_mark_pages_the_russian_manual_when_the_kernels_language_is_russian(variables):
    text = paged_in(variables)
    with open(INSTALLED_RUSSIAN, "rb") as f:
        russian = gettext.GNUTranslations(f)
    for english in manual_paragraphs("gilinfo"):
        translation = russian.gettext(english)
        assert translation != english, "the shipped catalog translates every paragraph of %gilinfo"
        assert shows(text, translation), f"%gilinfo? lacks the Russian of {english[:40]!r}"
        assert not shows(text, english)
    assert "интервал переключения" in text
    assert text.index("Options:") > text.index("PYTHON_GIL=1"), "the options follow the manual"


@pytest.mark.parametrize("variables", [{}, {"LANG": "C.UTF-8"}, {"LANGUAGE": "xx", "LANG": "ru_RU.UTF-8"}],
                         ids=["no language set", "the C locale", "a language with no catalog first"])
def test_question_mark_pages_the_english_manual_without_a_catalog_for_the_language(variables):
    text = paged_in(variables)
    for english in manual_paragraphs("gilinfo"):
        assert shows(text, english)
    assert not CYRILLIC.search(text)


def test_a_paragraph_the_catalog_lacks_is_paged_in_english(tmp_path):
    first, second = manual_paragraphs("gilinfo")
    localedir = compile_catalog(tmp_path, "ru", {first: "Первый абзац, переведённый в каталоге теста."})
    text = paged_in({"LANGUAGE": "ru", "GILLAB_LOCALEDIR": str(localedir)})
    assert "Первый абзац, переведённый в каталоге теста." in text
    assert not shows(text, first)
    assert shows(text, second)
    assert text.index("Первый абзац") < text.index("With --interpreters")


def test_a_filled_list_follows_its_translated_paragraph():
    text = paged_in({"LANGUAGE": "ru"}, "%%gilbench?")
    assert "Пресеты: опубликованные таблицы курса" in text
    assert re.search(r"^\s*%gilbench --preset cpu$", text, re.MULTILINE)
    assert "{presets}" not in text
