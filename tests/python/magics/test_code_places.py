"""gillab.magics.code_places names the places blame found as a student reads them: lines of the watched
cell counted with the %%magic line as 1 (IPython's dropped leading blank lines put back, a plain
compile's kept), a call instruction named by its callee, an operator by its instruction, files by
name and line, and places without a line said so."""

import dis
import threading

from gillab.magics import code_places

CELL_FILE = "<%%gilwatch cell>"


def opcode(name):
    return dis._all_opname.index(name)  # specialised opcodes too


def place(filename, line, op="BINARY_OP", column=-1, end_column=-1, qualname="<module>"):
    return {"filename": filename, "qualname": qualname, "line": line, "end_line": line, "column": column,
            "end_column": end_column, "opcode": opcode(op)}


def test_a_watched_cell_line_counts_the_magic_line_and_the_dropped_blank_lines():
    source = "\n\nimport zlib\nproduct = a * b\n"
    # IPython compiled the body without its two blank lines: `product = a * b` is its line 2.
    [described] = code_places.describe([place(CELL_FILE, 2)], {"filename": CELL_FILE, "source": source})
    assert described["where"] == "cell line 5"
    assert described["line"] == 5
    assert described["text"] == "product = a * b"
    assert described["instruction"] == "BINARY_OP"
    assert described["calls"] is None


def test_a_plain_compile_keeps_the_blank_lines():
    source = "\nimport time\ntime.sleep(0.5)\n"
    watched = {"filename": "<%%heartbeat cell>", "source": source, "drops_leading_blank_lines": False}
    [described] = code_places.describe([place("<%%heartbeat cell>", 3, "PRECALL", 0, 15)], watched)
    assert described["where"] == "cell line 4"
    assert described["calls"] == "time.sleep"


def test_a_call_is_named_by_its_callee_and_a_specialised_opcode_by_its_family():
    source = "packed = zlib.compress(data, 6)\n"
    column = source.index("zlib")
    specialised = next(name for name, base in dis.deoptmap.items() if base == "PRECALL")
    [described] = code_places.describe([place(CELL_FILE, 1, specialised, column, len(source) - 1)],
                                       {"filename": CELL_FILE, "source": source})
    assert described["instruction"] == "PRECALL"
    assert described["calls"] == "zlib.compress"


def test_a_file_is_named_by_its_base_name_and_line_with_its_text():
    line = threading.Thread.join.__code__.co_firstlineno
    [described] = code_places.describe([place(threading.__file__, line, "RESUME", qualname="Thread.join")],
                                       {"filename": "", "source": ""})
    assert described["where"] == f"threading.py:{line}"
    assert described["text"].startswith("def join(")
    assert described["function"] == "Thread.join"


def test_a_place_without_a_line_says_so():
    [described] = code_places.describe([place(CELL_FILE, -1, qualname="spin")], {"filename": CELL_FILE, "source": "x"})
    assert described["where"] == "spin (no line)"
    assert described["text"] == ""
