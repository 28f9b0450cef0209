"""gillab.seam: the modules C++ may call are the modules C++ calls, and each of them exists.
tools/include-graph fails the build's tests on an import outside the seam's two C++ files or of a
module not listed; this proves the list itself holds no stale name."""

import importlib.util
import pathlib
import subprocess
import sys

from gillab import seam

REPO = pathlib.Path(__file__).resolve().parents[2]


def load_include_graph():
    from importlib.machinery import SourceFileLoader
    loader = SourceFileLoader("include_graph", str(REPO / "tools" / "include-graph"))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


def test_every_listed_module_exists():
    for name in seam.CALLED_FROM_CPP:
        assert importlib.util.find_spec(name) is not None, name


def test_the_seam_s_cpp_files_call_exactly_the_listed_modules():
    graph = load_include_graph()
    called = {module for path in graph.SEAM for module in graph.package_imports((REPO / path).read_text())}
    assert called == set(seam.CALLED_FROM_CPP)


def test_a_package_import_outside_the_seam_fails_the_include_graph(tmp_path):
    (tmp_path / "magics" / "render").mkdir(parents=True)
    (tmp_path / "magics" / "render" / "chart.cpp").write_text('auto m = py::module_::import("gillab.magics.charts");\n')
    run = subprocess.run([sys.executable, str(REPO / "tools" / "include-graph"), str(tmp_path)],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert "magics/render/chart.cpp imports the gillab package (gillab.magics.charts)" in run.stderr
