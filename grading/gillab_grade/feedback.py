"""A feedback page per student and notebook: the scores, what happened, and
every cell with its outputs as text. Student-made HTML, JavaScript and SVG are
never rendered (only their text/plain), so the page is safe to open."""

import html
import re

from . import nbformat_grader as fmt

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_MAX_OUTPUT_CHARS = 20_000

_STYLE = """
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}
pre{background:#f6f6f6;padding:.5rem;overflow-x:auto;white-space:pre-wrap}
.cell{border-left:4px solid #ddd;margin:1rem 0;padding-left:.75rem}
.full{border-color:#2a2}.zero{border-color:#c22}.partial{border-color:#d90}.manual{border-color:#36c}
.err{color:#a00}pre.markdown{background:none;font-family:inherit}.note{background:#fff6d6;padding:.5rem}
"""


def _text(value):
    text = "".join(value) if isinstance(value, list) else str(value)
    text = _ANSI.sub("", text)
    if len(text) > _MAX_OUTPUT_CHARS:
        text = text[:_MAX_OUTPUT_CHARS] + f"\n[... {len(text) - _MAX_OUTPUT_CHARS} more characters]"
    return html.escape(text)


def _output_html(output):
    kind = output.output_type
    if kind == "stream":
        css = ' class="err"' if output.name == "stderr" else ""
        return f"<pre{css}>{_text(output.text)}</pre>"
    if kind == "error":
        return f'<pre class="err">{_text(chr(10).join(output.traceback) or output.ename)}</pre>'
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


def page(grade, nb):
    score, max_score, pending, manual_max = grade.totals
    scores = {c.grade_id: c for c in grade.cells}
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(grade.notebook)}: "
             f"{html.escape(grade.student)}</title><style>{_STYLE}</style></head><body>",
             f"<h1>{html.escape(grade.notebook)}</h1><p>Student: <b>{html.escape(grade.student)}</b></p>",
             f"<p>Autograded score: <b>{score:g} / {max_score:g}</b>"
             + (f"; {pending:g} of {manual_max:g} points to be graded by hand" if manual_max else "") + "</p>"]
    if grade.sandbox:
        where = ("a sandbox (no network; only its own files in reach; limits on processes, files, "
                 "CPU time and disk)" if grade.sandbox == "bubblewrap" else "no sandbox")
        parts.append(f"<p>Run in: {html.escape(where)}</p>")
    if grade.notes:
        parts.append("<div class='note'><b>Notes</b><ul>"
                     + "".join(f"<li>{html.escape(n)}</li>" for n in grade.notes) + "</ul></div>")
    parts.append("<table><tr><th>cell</th><th>kind</th><th>score</th><th>why</th></tr>")
    for c in grade.cells:
        shown = "pending" if c.score is None else f"{c.score:g}"
        parts.append(f"<tr><td>{html.escape(c.grade_id)}</td><td>{c.kind}</td>"
                     f"<td>{shown} / {c.points:g}</td><td>{html.escape(c.reason)}</td></tr>")
    parts.append("</table>")
    for cell in nb.cells if nb is not None else []:
        gid = fmt.grade_id(cell)
        scored = scores.get(gid) if gid else None
        css = f"cell {_badge_class(scored)}" if scored else "cell"
        title = (f"<p><b>{html.escape(gid)}</b>: "
                 f"{'pending' if scored.score is None else f'{scored.score:g}'} / {scored.points:g} "
                 f"({html.escape(scored.reason)})</p>") if scored else ""
        body = f"<pre class='{cell.cell_type}'>{_text(cell.source)}</pre>"
        outputs = "".join(_output_html(o) for o in cell.get("outputs", []))
        parts.append(f"<div class='{css}'>{title}{body}{outputs}</div>")
    parts.append("</body></html>")
    return "\n".join(parts)
