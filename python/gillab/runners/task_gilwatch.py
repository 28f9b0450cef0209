"""%%gilwatch's measurement: the cell run in the user's namespace inside the native sampler's watch.

The kernel calls measure(request, progress, tools) with its native tools (magics/framework/runner):
tools.watch, the sampler of who holds the GIL (with the holders' frames read when blame is on),
and tools.namespace, the user's namespace. The answer hands the watch back: its record is native
data (threads, turns, frames) that the magic reads itself and presents. The sampler reads this
interpreter's memory and cannot load elsewhere, so a child interpreter (tools None) refuses.
Standard library only, CPython 3.8+.
"""

try:  # as gillab.runners.task_gilwatch, in the kernel
    from .cell_error import CellError
    from .student_code import compile_cell, run_cell
except ImportError:  # from this folder, in a child (child.py)
    from cell_error import CellError
    from student_code import compile_cell, run_cell


def measure(request, progress=None, tools=None):
    """request: cell, period_s, blame. Returns {"watch": the finished watch} for the magic."""
    __tracebackhide__ = True  # an error in the cell shows the student's frames, not this one
    if tools is None:
        raise CellError("watches the kernel's own GIL with its native sampler: it runs in the kernel only")
    code = compile_cell(request["cell"], "gilwatch")
    with tools.watch(request["period_s"], request["blame"]) as watch:
        run_cell(code, tools.namespace)
    return {"watch": watch}
