"""The jobs of %gilbench --preset (gillab/preset_jobs/): one file per preset the magic lists,
each a cell the magic can run as it stands."""

import ast
import importlib.resources
import re

import pytest

from gillab import preset_jobs


@pytest.fixture
def preset_names(package_dir):
    _gillab = pytest.importorskip("_gillab")
    names = re.findall(r"^  %gilbench --preset ([\w-]+)$", _gillab.help("gilbench"), re.MULTILINE)
    assert names, "the manual lists no preset"
    return names


def test_every_preset_has_a_job_file_and_every_job_file_a_preset(preset_names):
    files = sorted(p.name for p in importlib.resources.files(preset_jobs).iterdir() if p.name.startswith("job_"))
    assert files == sorted("job_" + name.replace("-", "_") + ".py" for name in preset_names)


def test_each_job_file_defines_job_or_ajob_at_its_top_level(preset_names):
    for name in preset_names:
        tree = ast.parse(preset_jobs.source(name))
        defined = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        assert defined & {"job", "ajob"}, name


@pytest.mark.parametrize("name, expected", [("startup", 3), ("sleep", 3)])
def test_a_quick_preset_job_runs_as_written(name, expected):
    namespace = {}
    exec(compile(preset_jobs.source(name), "job_" + name + ".py", "exec"), namespace)
    assert namespace["job"](3) == expected
