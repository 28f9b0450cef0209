"""tools/include-graph: the C++ folders include one another in one direction only, ground floor
first (magics/base, then instruments and render, workers, framework, the magics, kernel)."""

import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TOOL = os.path.join(REPO, "tools", "include-graph")


def run_tool(root):
    return subprocess.run([sys.executable, TOOL, str(root)], capture_output=True, text=True, timeout=60)


def write(root, path, text):
    full = root / path
    full.parent.mkdir(parents=True, exist_ok=True)
    full.write_text(text)


def test_the_repository_includes_point_one_way_only():
    run = run_tool(REPO)
    assert run.returncode == 0, run.stderr
    assert "magics/framework -> magics/instruments" in run.stdout
    assert run.stderr == ""


BAD_TREES = {
    "a lower folder including a higher one, a cycle": (
        {"magics/framework/registry.hpp": '#include "base/clock.hpp"\n',
         "magics/base/clock.hpp": '#include "framework/registry.hpp"\n'},
        ["magics/base/clock.hpp -> magics/framework/registry.hpp", "cycle: "]),
    "two folders on one floor": (
        {"magics/render/render.hpp": '#include "instruments/gil_probe.hpp"\n',
         "magics/instruments/gil_probe.hpp": "\n"},
        ["against the direction"]),
    "a folder on no floor": (
        {"magics/framework/registry.hpp": '#include "drawer/thing.hpp"\n',
         "magics/drawer/thing.hpp": "\n"},
        ["magics/drawer stands on no floor"]),
}


@pytest.mark.parametrize("case", sorted(BAD_TREES))
def test_an_include_against_the_floors_fails_and_names_it(tmp_path, case):
    files, said = BAD_TREES[case]
    for path, text in files.items():
        write(tmp_path, path, text)
    run = run_tool(tmp_path)
    assert run.returncode == 1
    for words in said:
        assert words in run.stderr
