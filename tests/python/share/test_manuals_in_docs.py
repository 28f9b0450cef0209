"""share/manuals: each magic's manual is written once; docs/magics.md holds the copy
tools/manuals-into-docs makes of every file, and must not drift from them."""

import os
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def test_docs_hold_the_manual_files_as_they_are():
    check = subprocess.run(["/usr/bin/python3", "tools/manuals-into-docs", "--check"], cwd=REPO,
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def test_docs_show_each_manual_once_under_its_magic():
    with open(os.path.join(REPO, "docs", "magics.md"), encoding="utf-8") as f:
        docs = f.read()
    for name in sorted(f[:-4] for f in os.listdir(os.path.join(REPO, "share", "manuals")) if f.endswith(".txt")):
        assert docs.count(f"### `%{name}`\n") == 1, name
