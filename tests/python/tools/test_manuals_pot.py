"""tools/manuals-pot: the template of the manuals' translations holds each paragraph of
share/manuals once, with every file and line it comes from, and marks the paragraphs whose
{KEY} the magic fills so msgfmt refuses a translation that loses it."""

import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TOOL = os.path.join(REPO, "tools", "manuals-pot")
POT = os.path.join("share", "locale", "gillab-manuals.pot")


def run_tool(root, *arguments):
    return subprocess.run([sys.executable, TOOL, *arguments], cwd=root, capture_output=True, text=True, timeout=60)


def tree(root, files):
    (root / "share" / "manuals").mkdir(parents=True)
    for name, text in files.items():
        (root / "share" / "manuals" / name).write_text(text, encoding="utf-8")
    return root


def entries(root):
    """The template's entries after its header, each as the text between blank lines."""
    return (root / POT).read_text(encoding="utf-8").rstrip("\n").split("\n\n")[1:]


def test_each_paragraph_is_one_message_with_its_file_and_line(tmp_path):
    root = tree(tmp_path, {"a.txt": "Say \"hi\".\n\n  %a   one\n  %a x two\n", "b.txt": "Only b.\n"})
    run = run_tool(root)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert entries(root) == ['#: share/manuals/a.txt:1\nmsgid "Say \\"hi\\"."\nmsgstr ""',
                             '#: share/manuals/a.txt:3\nmsgid ""\n"  %a   one\\n"\n"  %a x two"\nmsgstr ""',
                             '#: share/manuals/b.txt:1\nmsgid "Only b."\nmsgstr ""']


def test_a_paragraph_in_two_manuals_is_one_message_naming_both(tmp_path):
    root = tree(tmp_path, {"a.txt": "Shared.\n", "b.txt": "Own.\n\nShared.\n"})
    run_tool(root)
    assert entries(root)[0] == '#: share/manuals/a.txt:1 share/manuals/b.txt:3\nmsgid "Shared."\nmsgstr ""'
    assert len(entries(root)) == 2


def test_a_translation_that_loses_a_filled_key_is_refused_by_msgfmt(tmp_path):
    root = tree(tmp_path, {"a.txt": "Loads:{loads}\n"})
    run_tool(root)
    assert "#, python-brace-format\n" in entries(root)[0]
    header = (root / POT).read_text(encoding="utf-8").split("\n\n")[0].replace("#, fuzzy\n", "")
    for text, accepted in (("Нагрузки:{loads}", True), ("Нагрузки:", False), ("Нагрузки:{load}", False)):
        po = tmp_path / "ru.po"
        po.write_text(f'{header}\n\n#, python-brace-format\nmsgid "Loads:{{loads}}"\nmsgstr "{text}"\n', encoding="utf-8")
        check = subprocess.run(["msgfmt", "--check", "-o", os.devnull, str(po)], capture_output=True, text=True)
        assert (check.returncode == 0) == accepted, (text, check.stderr)


def test_remaking_an_unchanged_template_leaves_it_as_it_was_date_included(tmp_path):
    root = tree(tmp_path, {"a.txt": "One.\n"})
    run_tool(root)
    first = (root / POT).read_bytes()
    assert b"POT-Creation-Date: " in first
    run_tool(root)
    assert (root / POT).read_bytes() == first


def test_check_fails_naming_the_tool_until_the_template_is_remade(tmp_path):
    root = tree(tmp_path, {"a.txt": "One.\n"})
    missing = run_tool(root, "--check")
    assert missing.returncode == 1 and "run tools/manuals-pot" in missing.stderr
    run_tool(root)
    assert run_tool(root, "--check").returncode == 0
    (root / "share" / "manuals" / "a.txt").write_text("One, edited.\n", encoding="utf-8")
    stale = run_tool(root, "--check")
    assert stale.returncode == 1
    assert stale.stderr.strip() == f"{POT} differs from share/manuals: run tools/manuals-pot"
