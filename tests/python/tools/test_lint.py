"""tools/lint (make lint): clean files pass; a file its checker rejects fails the run and is
named. Each case is a small git repository holding the project's own lint configuration."""

import os
import shutil
import subprocess

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TOOL = os.path.join(REPO, "tools", "lint")
CONFIGS = (".clang-format", ".flake8")

CLEAN = {
    "ok.py": "def twice(x):\n    return 2 * x\n",
    "ok.cpp": "namespace gillab\n{\n    int twice(int x)\n    {\n        return 2 * x;\n    }\n}\n",
    "ok.sh": "#!/bin/sh\nset -eu\necho \"$1\"\n",
}
BROKEN = {
    "flake8": ("bad.py", "import os\ndef f( x ):\n    return undefined_name\n"),
    "clang-format": ("bad.cpp", "namespace gillab {\nint twice(int x) { if(x) {return 2*x;} return 0; }\n}\n"),
    "shellcheck": ("bad.sh", "#!/bin/sh\nfor f in $(ls *.txt); do echo $f; done\n"),
    "long-functions": ("long.py", "def long():\n" + "    x = 1\n" * 90 + "    return x\n"),
}

needs_tools = pytest.mark.skipif(not all(shutil.which(t) for t in ("clang-format", "shellcheck", "pmccabe")),
                                 reason="the lint tools are not installed (make provision)")


def repository(root, files):
    for name in CONFIGS:
        shutil.copy(os.path.join(REPO, name), root / name)
    for name, text in files.items():
        (root / name).write_text(text)
        if text.startswith("#!"):
            (root / name).chmod(0o755)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "."], cwd=root, check=True)
    return root


def lint(root):
    return subprocess.run(["/usr/bin/python3", TOOL], cwd=root, capture_output=True, text=True, timeout=120)


@needs_tools
def test_clean_files_pass_every_checker(tmp_path):
    run = lint(repository(tmp_path, CLEAN))
    assert run.returncode == 0, run.stdout
    for checker in ("clang-format", "flake8", "shellcheck", "long-functions"):
        assert f"lint: {checker}:" in run.stdout and "clean" in run.stdout
    assert run.stderr == ""


@needs_tools
@pytest.mark.parametrize("checker", sorted(BROKEN))
def test_a_rejected_file_fails_the_run_and_is_named(tmp_path, checker):
    name, text = BROKEN[checker]
    run = lint(repository(tmp_path, {**CLEAN, name: text}))
    assert run.returncode == 1, run.stdout
    assert name in run.stdout
    assert f"lint: {checker}: found problems" in run.stdout
