"""Each lecture's key results, kept in a small JSON file beside the notebook
(`lecture-02-key-results.json`), so the last lecture, or any notebook, can build
the course-wide decision table from the student's own figures."""

import datetime
import json
import pathlib
import platform
import sys

from ..runners.cores import usable_cores

PATTERN = "lecture-{:02d}-key-results.json"


def _plain(value):
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if hasattr(value, "__float__"):
        return float(value)
    raise TypeError(f"a key result must be a number, a string, or a list or dict of them, not {type(value).__name__}")


class Kept:
    """What keep() stored: `path` and `figures`; shown as one line saying where."""

    def __init__(self, lecture, path, figures):
        self.lecture, self.path, self.figures = lecture, path, figures

    def __repr__(self):
        return f"kept {len(self.figures)} key results of lecture {self.lecture} in {self.path.name}"


def keep(lecture, folder=".", **figures):
    """Store `figures` (name=number or text) as lecture `lecture`'s key results in `folder`,
    replacing what an earlier run kept. Returns a `Kept` (its repr says where)."""
    if not isinstance(lecture, int) or not 1 <= lecture <= 99:
        raise ValueError(f"lecture must be a lecture number such as 2, not {lecture!r}")
    path = pathlib.Path(folder, PATTERN.format(lecture))
    record = {"lecture": lecture, "python": platform.python_version(), "platform": sys.platform,
              "cpus": usable_cores()["cores"],
              "kept_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "figures": _plain(figures)}
    path.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return Kept(lecture, path, record["figures"])


def load_all(folder="."):
    """{lecture number: its figures} for every key-results file in `folder`; a file that is not
    valid JSON is skipped with a one-line note (a half-written file must not stop the table)."""
    found = {}
    for path in sorted(pathlib.Path(folder).glob("lecture-*-key-results.json")):
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
            found[int(record["lecture"])] = record["figures"]
        except (ValueError, KeyError, TypeError):
            print(f"skipped {path.name}: not a key-results file (rerun its lecture to rewrite it)")
    return found
