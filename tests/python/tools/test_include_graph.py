"""tools/include-graph: the C++ folders include one another in one direction only, ground floor
first (magics/base, then instruments and render, workers, framework, the magics, kernel)."""

import os
import subprocess
import sys

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


def test_a_lower_folder_including_a_higher_one_fails_and_names_the_file(tmp_path):
    write(tmp_path, "magics/framework/registry.hpp", '#include "base/clock.hpp"\n')
    write(tmp_path, "magics/base/clock.hpp", '#include "framework/registry.hpp"\n')
    run = run_tool(tmp_path)
    assert run.returncode == 1
    assert "magics/base/clock.hpp -> magics/framework/registry.hpp" in run.stderr
    assert "cycle: " in run.stderr


def test_two_folders_on_one_floor_may_not_include_each_other(tmp_path):
    write(tmp_path, "magics/render/render.hpp", '#include "instruments/gil_probe.hpp"\n')
    write(tmp_path, "magics/instruments/gil_probe.hpp", "\n")
    run = run_tool(tmp_path)
    assert run.returncode == 1
    assert "against the direction" in run.stderr


def test_a_folder_on_no_floor_is_reported(tmp_path):
    write(tmp_path, "magics/framework/registry.hpp", '#include "drawer/thing.hpp"\n')
    write(tmp_path, "magics/drawer/thing.hpp", "\n")
    run = run_tool(tmp_path)
    assert run.returncode == 1
    assert "magics/drawer stands on no floor" in run.stderr
