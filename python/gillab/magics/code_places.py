"""Where in her code a place the GIL sampler saw is, as a student reads it: "cell line 4" for
the watched cell (its first line is the %%magic line), "In [3] line 2" for an earlier cell,
"threading.py:324" for a file, with the line's text and, where the instruction is a call (or
an operator the interpreter hands to C code), what it calls. The sampler copies a code
object's name, file and line table and decodes lines natively; this names them for people."""

import dis
import linecache
import os

from IPython import get_ipython

_CALLS = {"PRECALL", "CALL", "CALL_FUNCTION_EX"}


def _base_opname(opcode):
    name = dis._all_opname[opcode] if 0 <= opcode < len(dis._all_opname) else "?"
    return dis.deoptmap.get(name, name)


def _cell_numbers():
    shell = get_ipython()
    return getattr(getattr(shell, "compile", None), "_filename_map", {}) if shell is not None else {}


def _in_watched(filename, watched):
    return bool(filename) and filename == watched["filename"]


def _cell_line(line, watched):
    """The line of the student's cell (the %%magic line is line 1) that compiled line `line` of
    its body is; IPython's transform (not a plain compile) drops the body's leading blank lines."""
    lines = watched["source"].splitlines()
    blank = next((i for i, text in enumerate(lines) if text.strip()), 0)
    return line + (blank if watched.get("drops_leading_blank_lines", True) else 0) + 1


def _source_line(filename, line, watched):
    if _in_watched(filename, watched):
        lines = watched["source"].splitlines()
        index = _cell_line(line, watched) - 2
        return lines[index] if 0 <= index < len(lines) else ""
    return linecache.getline(filename, line).rstrip("\n")


def _callee(text, column, end_column):
    """The called expression of a call that starts and ends on this line: `zlib.compress` of
    `zlib.compress(data, 9)`. Columns are UTF-8 byte offsets."""
    raw = text.encode()
    if column < 0 or end_column <= column or end_column > len(raw):
        return None
    call = raw[column:end_column].decode(errors="replace")
    head = call.split("(", 1)[0].strip()
    return head or None


def _where(filename, line, watched, cells):
    if _in_watched(filename, watched):
        return f"cell line {_cell_line(line, watched)}"
    if filename in cells:
        return f"In [{cells[filename]}] line {line}"
    return f"{os.path.basename(filename) or filename}:{line}"


def describe(places, watched):
    """places: dicts of filename, qualname, line, column, end_column, opcode (line -1: none).
    watched: the cell run under the magic, as filename and source (its body, under the magic's
    own line; filename "" for none) and drops_leading_blank_lines. Returns, per place, where, text,
    function, file, line, instruction, calls."""
    cells = _cell_numbers()
    described = []
    for place in places:
        filename, line = place["filename"], place["line"]
        text = _source_line(filename, line, watched) if line > 0 and filename else ""
        instruction = _base_opname(place["opcode"])
        calls = None
        if instruction in _CALLS and place["end_line"] == line:
            calls = _callee(text, place["column"], place["end_column"])
        described.append({
            "where": _where(filename, line, watched, cells) if line > 0 else f"{place['qualname'] or '?'} (no line)",
            "text": text.strip(),
            "function": place["qualname"],
            "file": filename,
            "line": _cell_line(line, watched) if _in_watched(filename, watched) and line > 0 else line,
            "instruction": instruction,
            "calls": calls,
        })
    return described
