"""gillab.course.tables: rows as a Markdown table."""

import pytest

from gillab.course import table


def test_table_aligns_formats_and_rejects_ragged_rows():
    text = table(["mode", "wall (s):"], [("threads", 1.23456), ("none", None), ("jobs", 12000)]).data
    lines = text.splitlines()
    assert lines[0] == "| mode | wall (s) |" and lines[1] == "| --- | ---: |"
    assert lines[2] == "| threads | 1.235 |" and lines[3] == "| none |  |" and lines[4] == "| jobs | 12,000 |"
    with pytest.raises(ValueError, match="a row has 1 cells for 2 columns"):
        table(["a", "b"], [("only one",)])


def test_cells_and_headers_are_text_not_markdown_except_their_code_spans():
    text = table(["7**2 * 3**2:", "a_b"], [("7**500000 * 11**500000 [x](y) <b>", "`a*b*c` stays code, a|b")]).data
    lines = text.splitlines()
    assert lines[0] == "| 7\\*\\*2 \\* 3\\*\\*2 | a\\_b |"
    assert lines[2] == "| 7\\*\\*500000 \\* 11\\*\\*500000 \\[x\\](y) \\<b\\> | `a*b*c` stays code, a\\|b |"
