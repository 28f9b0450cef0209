"""`%gilbench --preset NAME`, each preset in this folder alone: presets.json says what it
reproduces, the options it sets and its physical limit; job_NAME.py is its job, what the line
form runs when the student writes no cell and the code the course's tables were taken with. Each
job file is a %%gilbench cell as a student would write it, so it is shown and run as is. The
published figures stay the course's (gillab/course/published.json)."""

import importlib.resources
import json


def source(preset):
    """The cell of `preset` ("hashlib-small" -> job_hashlib_small.py), as text."""
    name = "job_" + preset.replace("-", "_") + ".py"
    return importlib.resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def definitions():
    """Every preset in the order %gilbench? lists them: name, summary, options, wait_s,
    cpu_bound and job (its cell's source). Read once by the magic (magics/gilbench_presets.cpp)."""
    table = json.loads(importlib.resources.files(__name__).joinpath("presets.json").read_text(encoding="utf-8"))
    return [dict(preset, job=source(preset["name"])) for preset in table["presets"]]


def listing(presets=None):
    """The presets as %gilbench? lists them, one block each (the docs' copy is made with it too)."""
    return "".join(f"  %gilbench --preset {p['name']}\n      {p['summary']}\n      = {p['options']}\n"
                   for p in presets or definitions())
