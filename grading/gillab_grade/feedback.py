"""A feedback page per student and notebook: the scores, what happened, and
every cell with its outputs as text, each graded cell named by its exercise
and grade_id. Markdown is rendered with raw HTML escaped; student-made HTML,
JavaScript and SVG outputs are never rendered (only their text/plain), so the
page is safe to open. Hidden tests are left out unless the instructor shows
them (the page says which)."""

import copy
import html
import re

from markdown_it import MarkdownIt

from . import nbformat_grader as fmt
from .release import BEGIN_HIDDEN, clear_hidden_tests

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_MAX_OUTPUT_CHARS = 20_000
# CommonMark with tables; "html": False turns raw HTML in a cell into text.
_MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("table")

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}
pre{background:#f6f6f6;padding:.5rem;overflow-x:auto;white-space:pre-wrap}
.cell{border-left:4px solid #ddd;margin:1rem 0;padding-left:.75rem}
.full{border-color:#2a2}.zero{border-color:#c22}.partial{border-color:#d90}.manual{border-color:#36c}
.err{color:#a00}.note{background:#fff6d6;padding:.5rem}
"""


def _text(value):
    text = "".join(value) if isinstance(value, list) else str(value)
    text = _ANSI.sub("", text)
    if len(text) > _MAX_OUTPUT_CHARS:
        text = text[:_MAX_OUTPUT_CHARS] + f"\n[... {len(text) - _MAX_OUTPUT_CHARS} more characters]"
    return html.escape(text)


def _output_html(output, brief_errors):
    kind = output.output_type
    if kind == "stream":
        css = ' class="err"' if output.name == "stderr" else ""
        return f"<pre{css}>{_text(output.text)}</pre>"
    if kind == "error":
        # A traceback quotes the failing line: of a hidden test, it would show the test.
        shown = f"{output.ename}: {output.evalue}" if brief_errors else "\n".join(output.traceback)
        return f'<pre class="err">{_text(shown or output.ename)}</pre>'
    data = output.get("data", {})
    if "text/plain" in data:
        return f"<pre>{_text(data['text/plain'])}</pre>"
    return f"<p><i>({html.escape(', '.join(data))} output not shown)</i></p>"


def _badge_class(score):
    if score.score is None:
        return "manual"
    if score.score >= score.points:
        return "full"
    return "zero" if score.score == 0 else "partial"


def _heading(cell):
    for line in cell.source.splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return None


def exercises(nb):
    """{grade_id: the exercise it belongs to}: the title of the last Markdown heading at or
    before the cell ("" before any heading)."""
    titles, current = {}, ""
    for cell in nb.cells if nb is not None else []:
        if cell.cell_type == "markdown":
            current = _heading(cell) or current
        if fmt.grade_id(cell):
            titles[fmt.grade_id(cell)] = current
    return titles


def _cell_name(gid, titles):
    title = titles.get(gid, "")
    return (f"{html.escape(title)} (<code>{html.escape(gid)}</code>)" if title
            else f"<code>{html.escape(gid)}</code>")


def _summary(grade, titles, show_hidden):
    score, max_score, pending, manual_max = grade.totals
    parts = [f"<h1>{html.escape(grade.notebook)}</h1><p>Student: <b>{html.escape(grade.student)}</b></p>",
             f"<p>Autograded score: <b>{score:g} / {max_score:g}</b>"
             + (f"; {pending:g} of {manual_max:g} points to be graded by hand" if manual_max else "") + "</p>",
             "<p>Hidden tests: " + ("shown below with the tests they belong to" if show_hidden else
                                    "not shown (they ran, and their results count in the score)") + "</p>"]
    if grade.sandbox:
        where = ("a sandbox (no network; only its own files in reach; limits on processes, files, "
                 "CPU time and disk)" if grade.sandbox == "bubblewrap" else "no sandbox")
        parts.append(f"<p>Run in: {html.escape(where)}</p>")
    if grade.notes:
        parts.append("<div class='note'><b>Notes</b><ul>"
                     + "".join(f"<li>{html.escape(n)}</li>" for n in grade.notes) + "</ul></div>")
    parts.append("<table><tr><th>exercise</th><th>cell</th><th>kind</th><th>score</th><th>why</th></tr>")
    for c in grade.cells:
        shown = "pending" if c.score is None else f"{c.score:g}"
        parts.append(f"<tr><td>{html.escape(titles.get(c.grade_id, ''))}</td><td><code>"
                     f"{html.escape(c.grade_id)}</code></td><td>{c.kind}</td>"
                     f"<td>{shown} / {c.points:g}</td><td>{html.escape(c.reason)}</td></tr>")
    parts.append("</table>")
    return parts


def _cell_html(cell, scored, titles, show_hidden):
    hides = not show_hidden and cell.cell_type == "code" and BEGIN_HIDDEN in cell.source
    if hides:
        cell = copy.deepcopy(cell)
        clear_hidden_tests(cell)
    title = ""
    if scored:
        shown = "pending" if scored.score is None else f"{scored.score:g}"
        title = (f"<p><b>{_cell_name(scored.grade_id, titles)}</b>: {shown} / {scored.points:g} "
                 f"({html.escape(scored.reason)})</p>")
    if cell.cell_type == "markdown":
        body = _MARKDOWN.render("".join(cell.source))
    else:
        body = f"<pre>{_text(cell.source)}</pre>"
    if hides:
        body += "<p><i>(hidden tests ran here; not shown)</i></p>"
    outputs = "".join(_output_html(o, hides) for o in cell.get("outputs", []))
    css = f"cell {_badge_class(scored)}" if scored else "cell"
    return f"<div class='{css}'>{title}{body}{outputs}</div>"


def page(grade, nb, instructor=None, show_hidden=False):
    """The page of grade (a gradebook.NotebookGrade) over the executed notebook nb (None when it
    did not run); exercises are named from instructor's headings."""
    titles = exercises(instructor if instructor is not None else nb)
    scores = {c.grade_id: c for c in grade.cells}
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(grade.notebook)}: "
             f"{html.escape(grade.student)}</title><style>{_STYLE}</style></head><body>"]
    parts += _summary(grade, titles, show_hidden)
    for cell in nb.cells if nb is not None else []:
        gid = fmt.grade_id(cell)
        parts.append(_cell_html(cell, scores.get(gid) if gid else None, titles, show_hidden))
    parts.append("</body></html>")
    return "\n".join(parts)
