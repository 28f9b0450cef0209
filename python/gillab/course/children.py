"""Run a script in a fresh interpreter, as a student's own terminal would, and
keep what it printed: the lectures show the errors a child process reports."""

import dataclasses
import os
import pathlib
import subprocess
import tempfile

ERROR_WORDS = ("Error", "Broken", "An attempt", "bootstrapping")


@dataclasses.dataclass
class ChildRun:
    """A finished child: its exit code, its output, and the distinct error lines of its stderr."""
    args: list
    returncode: int
    stdout: str
    stderr: str

    @property
    def error_lines(self):
        lines = [line.strip() for line in self.stderr.splitlines()
                 if any(word in line for word in ERROR_WORDS) and not line.strip().startswith("raise")]
        return list(dict.fromkeys(lines))

    def last_lines(self, n=4):
        return "\n".join((self.stdout + self.stderr).strip().splitlines()[-n:])

    def __repr__(self):
        text = [f"exit code {self.returncode}"]
        if self.stdout.strip():
            text.append(self.stdout.strip())
        text += [f"  child said: {line}" for line in self.error_lines]
        return "\n".join(text)


def command(python, folder):
    """The argv that starts `python` in `folder` (which holds its script) as the magics' --python
    does: Debian unstable's 3.14 and 3.15 run under bubblewrap in their own root, `folder` bound in."""
    import _gillab
    return _gillab.interpreter_command(python, [str(folder)], str(folder))


def run_python(*args, python="/usr/bin/python3", cwd=None, timeout=120, env=None):
    """Run `python args...` and return a `ChildRun` (its repr is what a student would read)."""
    argv = [*command(python, cwd or os.getcwd()), *args]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=cwd, env=env)
    return ChildRun([python, *args], done.returncode, done.stdout, done.stderr)


def run_file(source, python="/usr/bin/python3", name="script.py", files=None, timeout=120, env=None):
    """Write `source` as `name` (and `files`, {name: text}, beside it) in a fresh folder and run it there."""
    with tempfile.TemporaryDirectory(prefix="gillab-child-") as folder:
        for other, text in (files or {}).items():
            pathlib.Path(folder, other).write_text(text)
        pathlib.Path(folder, name).write_text(source)
        return run_python(name, python=python, cwd=folder, timeout=timeout, env=env)


SCRIPTS = pathlib.Path(__file__).with_name("child_scripts")


def run_json(python, script, *args, gil=None, timeout=60):
    """Run the child script `script` (a name in child_scripts/, such as "tight_loops") under
    `python` with `args`, PYTHON_GIL set to `gil` (unset when None); the JSON it printed, or
    None after printing one line on why (no answer in time, or the script failed)."""
    import json
    env = {k: v for k, v in os.environ.items() if k != "PYTHON_GIL"}
    if gil is not None:
        env["PYTHON_GIL"] = gil
    import _gillab
    try:
        # a child may run for many seconds: the cell says so while it waits
        with _gillab.progress(script, f"running in {os.path.basename(python)}"):
            done = subprocess.run([*command(python, SCRIPTS), f"{script}.py", *map(str, args)], capture_output=True,
                                  text=True, env=env, timeout=timeout, cwd=SCRIPTS)
    except subprocess.TimeoutExpired:
        print(f"{python}: no answer within {timeout} s (a very busy machine); its row is left out")
        return None
    if done.returncode != 0:
        print(f"{python} failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(done.stdout)
