"""The jobs of `%gilbench --preset NAME` (magics/gilbench_presets.cpp), one file each: what the
line form runs when the student writes no cell, and the code the course's tables were taken
with. Each file is a %%gilbench cell as a student would write it, so it is shown and run as is."""

import importlib.resources


def source(preset):
    """The cell of `preset` ("hashlib-small" -> job_hashlib_small.py), as text."""
    name = "job_" + preset.replace("-", "_") + ".py"
    return importlib.resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
