"""Each magic's manual over the protocol: `%NAME?` pages the text of share/manuals/NAME.txt (the
one file docs/magics.md is made from), then the magic's options."""

import os
import re

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MANUALS = os.path.join(REPO, "share", "manuals")
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
