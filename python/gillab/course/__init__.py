"""Helpers the lecture notebooks call, so that every cell a student sees is one
she could have written herself.

* `runs`: figures from %%gilbench results (fastest run, speed-up, a busy-machine note);
* `tables`: a list of rows as a Markdown table;
* `predictions`: the student's guess beside the measurement and the published figure;
* `size`: how much a lecture measures (`sized(full, short)`: short runs for graders and tests);
* `machine`: sentences about this machine, from %gilinfo (never typed into the prose);
* `key_results`: each lecture's key figures in a small JSON file beside the notebook;
* `decisions`: the course-wide decision table from those files;
* `children`: run a script in a fresh interpreter and show what it printed;
* `races`, `bytecode`, `asyncio_debug`, `plots`: the plumbing of single lectures.
"""

from .runs import fastest, best_speedup, busy_note, cores_used, wall_at_least
from .tables import table
from .predictions import calibration, compare
from .machine import describe, find_python
from .size import sized
from .key_results import keep, load_all
from .decisions import decision_table

__all__ = ["fastest", "best_speedup", "busy_note", "cores_used", "wall_at_least", "table", "compare", "calibration",
           "describe", "find_python", "keep", "load_all", "decision_table", "sized"]
