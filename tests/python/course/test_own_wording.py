"""The lectures and the course's helpers are written in their own words: no notebook cell and no
file of gillab.course shares a run of 8 words with an English source article (figures may be
quoted; a cited title is not a borrowed sentence). The articles live in ../shared/course beside
the repository, or beside the main worktree when this is a linked one."""

import glob
import json
import os
import re
import subprocess

import pytest

from gillab.course import published

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
RUN = 8
WORD = re.compile(r"[a-z0-9_]+")
# The Spanish 000_ is a translation of 003_ and the Russian 004_ shares no English runs.
ENGLISH = ("002_", "003_")


def course_folder():
    roots = [REPO]
    try:
        common = subprocess.run(["git", "-C", REPO, "rev-parse", "--path-format=absolute", "--git-common-dir"],
                                capture_output=True, text=True, check=True).stdout.strip()
        roots.append(os.path.dirname(common))
    except (OSError, subprocess.CalledProcessError):
        pass
    for root in roots:
        folder = os.path.join(os.path.dirname(root), "shared", "course")
        if os.path.isdir(folder):
            return folder
    return None


def runs(text):
    words = WORD.findall(text.lower())
    return {tuple(words[i:i + RUN]) for i in range(len(words) - RUN + 1)}


def article_runs():
    folder = course_folder()
    if folder is None:
        pytest.skip("the source articles (../shared/course beside the repository) are not here")
    found = set()
    for path in sorted(glob.glob(os.path.join(folder, "*.txt"))):
        if os.path.basename(path).startswith(ENGLISH):
            with open(path, encoding="utf-8") as f:
                found |= runs(f.read())
    assert found, f"no English article in {folder}"
    return found - cited_titles()


def cited_titles():
    return {run for name in published.names() for run in runs(published.source(name)["title"])}


def texts():
    """(label, text) of every notebook cell and every course helper."""
    for path in sorted(glob.glob(os.path.join(REPO, "notebooks", "*.ipynb"))):
        with open(path, encoding="utf-8") as f:
            for index, cell in enumerate(json.load(f)["cells"]):
                yield f"{os.path.basename(path)} cell {index}", "".join(cell["source"])
    helpers = os.path.join(REPO, "python", "gillab", "course")
    for path in sorted(glob.glob(os.path.join(helpers, "**", "*.py"), recursive=True)):
        with open(path, encoding="utf-8") as f:
            yield os.path.relpath(path, REPO), f.read()


def borrowed():
    shared = article_runs()
    problems = []
    for label, text in texts():
        for run in sorted(runs(text) & shared):
            problems.append(f"{label}: {' '.join(run)}")
    return problems


def test_no_lecture_or_course_helper_shares_an_8_word_run_with_an_english_article():
    problems = borrowed()
    assert not problems, "\n".join(problems)


def test_a_shared_run_is_found_and_a_cited_title_is_not_one():
    assert runs("A b, c-d e f (g) h!") == {("a", "b", "c", "d", "e", "f", "g", "h")}
    assert runs("one two three four five six seven") == set()
    assert ("the", "gil", "is", "not", "a", "lock", "on", "your") in cited_titles()
