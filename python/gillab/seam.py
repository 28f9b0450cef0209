"""The modules of this package that C++ calls, by name: the other side of the seam.

C++ imports them only from magics/framework/python_side.cpp and kernel/python_side.cpp (typed
functions there); tools/include-graph fails on an import anywhere else, or of a module not listed
here. A module named here is called from C++: rename or move it with its caller. The runner
tasks are found through `gillab.runners.tasks` (TASKS), as a child interpreter finds them."""

CALLED_FROM_CPP = (
    # magics/framework/python_side.cpp
    "gillab.runners.tasks",
    "gillab.runners.cell_error",
    "gillab.runners.cores",
    "gillab.runners.interpreter",
    "gillab.magics.cell_modules",
    "gillab.magics.charts",
    "gillab.magics.code_places",
    "gillab.magics.concurrency_facts",
    "gillab.magics.state_guard",
    "gillab.magics.manuals",
    "gillab.course.published",
    "gillab.preset_jobs",
    # kernel/python_side.cpp
    "gillab.kernel.launch",
    "gillab.kernel.shell",
    "gillab.kernel.shell.streams",
    "gillab.kernel.debugging",
    "gillab.runners.process_tree",
)
