"""What a long-running kernel keeps per failing cell: counted as Python
objects inside the kernel (not RSS, which the allocator blurs)."""

import re

COUNTERS = """
import ast as _ast, gc as _gc
def _count_ast_nodes():
    _gc.collect()
    return sum(isinstance(o, _ast.AST) for o in _gc.get_objects())
"""


def failing_cell(i):
    # Every cell distinct, as a class's cells are: a cache keyed by cell
    # keeps one entry per cell.
    return f"def step_{i}(x):\n    y = x * {i}\n    return [y][0] / 0\nstep_{i}({i})"


def test_failing_cells_leave_no_syntax_trees_behind(fresh_kernel):
    fresh_kernel.ok(COUNTERS)
    for i in range(20):
        assert fresh_kernel.execute(failing_cell(i)).status == "error"
    before = fresh_kernel.eval("_count_ast_nodes()")
    for i in range(20, 220):
        assert fresh_kernel.execute(failing_cell(i)).status == "error"
    after = fresh_kernel.eval("_count_ast_nodes()")
    # Kept for every cell, each would leave ~20 nodes: 4,000 over 200 cells.
    assert after - before < 200, (before, after)


def test_a_traceback_still_shows_the_source_of_an_earlier_cell(fresh_kernel):
    fresh_kernel.ok("def halve(x):\n    return x / 0")
    for i in range(3):
        assert fresh_kernel.execute(f"raise ValueError({i})").status == "error"
    failed = fresh_kernel.execute("halve(4)")
    assert failed.status == "error"
    traceback = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(failed.reply["content"]["traceback"]))
    assert "----> 2     return x / 0" in traceback
    assert "halve(4)" in traceback
