"""The one table of runner tasks: the kernel (magics/framework/python_side) and a child interpreter
(child.py) both find a request's task here, so a task either side can name is one the other finds.
Standard library only, CPython 3.8+.
"""

import importlib

try:  # as gillab.runners.tasks, in the kernel
    from .cell_error import CellError
except ImportError:  # from this folder, in a child (child.py)
    from cell_error import CellError

# A request's "task" -> its module in this folder. A child finds gilwatch too, and it refuses
# there with its own one-line error (its sampler reads the kernel's memory).
TASKS = {"race": "task_race", "gilbench": "task_gilbench", "switchinterval": "task_switchinterval",
         "heartbeat": "task_heartbeat", "gil_trace": "task_gil_trace", "gilwatch": "task_gilwatch",
         "timeline": "task_timeline"}


def task_module(name):
    """The module whose measure(request, ...) answers task `name`; CellError for a name not in TASKS."""
    if name not in TASKS:
        raise CellError("unknown task %r; known: %s" % (name, ", ".join(sorted(TASKS))))
    # __package__ is "gillab.runners" in the kernel, empty in a child (this folder is on its path).
    return importlib.import_module("%s.%s" % (__package__, TASKS[name]) if __package__ else TASKS[name])
