"""The entry point of a child interpreter (--python): one request in, one answer out.

    python -s child.py RESULT_FD  < request.json

The request (JSON on stdin) names a task (TASKS of tasks.py: "race" -> task_race.py) and its
parameters; the answer (JSON written to RESULT_FD, not stdout, so the cell may print freely) is
{"ok": true, "interpreter": {...}, "result": {...}} or {"ok": false, "kind": "usage"|"error",
"error": one line, "traceback": text}, with no newline. Before it, when the request says
"progress": true, a task that takes `progress` sends lines on the same fd while it runs, each
one JSON string and a newline (the kernel shows them as its live progress): a line that ends
is progress, the text that never ends is the answer. Any CPython 3.8+ runs it; nothing outside the standard
library and this folder is imported.
"""

import inspect
import json
import os
import sys
import traceback

from cell_error import CellError
from interpreter import describe
from tasks import task_module


def answer(request, progress):
    try:
        task = task_module(request.get("task"))
        wanted = request.get("progress") and "progress" in inspect.signature(task.measure).parameters
        options = {"progress": progress} if wanted else {}
        return {"ok": True, "interpreter": describe(), "result": task.measure(request, **options)}
    except CellError as error:
        return {"ok": False, "kind": "usage", "error": str(error)}
    except BaseException as error:
        cause = error.__cause__ or error
        # A task's own errors (one_line = True) already say what happened and where.
        one_line = str(error) if getattr(error, "one_line", False) else "%s: %s" % (type(error).__name__, error)
        return {"ok": False, "kind": "error", "error": one_line,
                "traceback": "".join(traceback.format_exception(type(cause), cause, cause.__traceback__))}


def main():
    # The cell's prints reach the notebook as they happen, and an interrupt loses none.
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(line_buffering=True)
    with os.fdopen(int(sys.argv[1]), "w") as out:
        def progress(text):
            out.write(json.dumps(text) + "\n")
            out.flush()

        json.dump(answer(json.load(sys.stdin), progress), out)
    # Threads a stopped run had to abandon (a job blocked in C) must not hold up the exit.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
