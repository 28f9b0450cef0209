"""The lectures predict, then measure, then reveal: no cell before a prediction shows the
published figure that prediction is about (read from the notebook JSON, no kernel).

A prediction cell (tagged `prediction`) names what it is about in its metadata:
`"gillab": {"figure": KEY, "answer": [[key, ...], ...]}`, KEY a published.json figure (or null
when no figure was published) and each answer a path inside it to the published result
(a path to a dict covers everything under it). The compare(...) after the prediction passes
the same `figure=KEY`. A cell reveals a path when it reads it from `published.figure(KEY)`
(directly or through a name bound to part of it), when it runs a magic that prints that
figure, or when its text holds one of the answer's numbers."""

import ast
import glob
import json
import os
import re

import pytest

from gillab.course import published
from gillab.course.figure_reads import ANY, magic_figures, python_of

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
NOTEBOOKS = sorted(glob.glob(os.path.join(REPO, "notebooks", "*.ipynb")))


def cells(path):
    with open(path, encoding="utf-8") as f:
        return [(c["cell_type"], "".join(c["source"]), c.get("metadata", {}), c.get("outputs", []))
                for c in json.load(f)["cells"]]


def is_prediction(metadata):
    return "prediction" in metadata.get("tags", [])


class FigureReads(ast.NodeVisitor):
    """The published paths a cell reads and does more with than bind to a name. `names` maps
    a name to the (figure, path) it holds and lives as long as the kernel's globals would."""

    def __init__(self, names):
        self.names, self.reads, self.bound = names, [], set()

    def resolve(self, node):
        if isinstance(node, ast.Call):
            func = node.func
            if (isinstance(func, ast.Attribute) and func.attr == "figure" and isinstance(func.value, ast.Name)
                    and func.value.id == "published" and node.args and isinstance(node.args[0], ast.Constant)):
                return node.args[0].value, ()
            if isinstance(func, ast.Attribute) and func.attr == "get" and node.args:
                inner = self.resolve(func.value)
                if inner:
                    key = node.args[0]
                    return inner[0], inner[1] + (str(key.value) if isinstance(key, ast.Constant) else ANY,)
            return None
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            return self.names.get(node.id)
        if isinstance(node, ast.Subscript):
            inner = self.resolve(node.value)
            if inner:
                key = node.slice
                return inner[0], inner[1] + (str(key.value) if isinstance(key, ast.Constant) else ANY,)
        return None

    def visit_Assign(self, node):
        targets, values = node.targets[0], node.value
        pairs = (list(zip(targets.elts, values.elts)) if isinstance(targets, ast.Tuple) and isinstance(values, ast.Tuple)
                 else [(targets, values)])
        for target, value in pairs:
            held = self.resolve(value)
            if isinstance(target, ast.Name) and held:
                self.names[target.id] = held
                self.bound.add(id(value))
        self.generic_visit(node)

    def generic_visit(self, node):
        for child in ast.iter_child_nodes(node):
            extends = (isinstance(node, ast.Subscript) and child is node.value) or \
                      (isinstance(node, ast.Attribute) and node.attr == "get" and child is node.value)
            if not extends and id(child) not in self.bound and self.resolve(child):
                self.reads.append(self.resolve(child))
            self.visit(child)


def overlaps(read, answer):
    return all(a == b or ANY in (a, b) for a, b in zip(read, answer))


def leaves(value):
    if isinstance(value, dict):
        return [x for v in value.values() for x in leaves(v)]
    if isinstance(value, list):
        return [x for v in value for x in leaves(v)]
    return [value] if isinstance(value, (int, float)) and not isinstance(value, bool) else []


def at(figure, path):
    for key in path:
        figure = figure[int(key)] if isinstance(figure, list) else figure[key]
    return figure


def number_pattern(value):
    """A regex for how a lecture would write `value`: 0.932, 1.70, x7.86, 6,000,000, 6_000_000."""
    if isinstance(value, float) and not value.is_integer():
        return r"(?<![\d.])" + re.escape(repr(value)) + r"0*(?!\d)"
    n = int(value)
    forms = {str(n), f"{n:,}", f"{n:_}"}
    return r"(?<![\d.,_])(" + "|".join(re.escape(f) for f in forms) + r")(?!\d)(?![,_]\d)"


def telling_numbers(key, answers):
    """The answer's numbers a reader could recognise: not the design's (the same number elsewhere
    in the figure is a size or a count, fair to state), not small whole numbers."""
    figure = published.figure(key)
    answer_values = [v for path in answers for v in leaves(at(figure, path))]
    everything = leaves(figure)
    design = list(everything)
    for v in answer_values:
        design.remove(v)
    return sorted({v for v in answer_values if v not in design and not (float(v).is_integer() and abs(v) < 100)})


def predictions(path):
    found = []
    for index, (kind, source, metadata, _) in enumerate(cells(path)):
        if kind == "code" and is_prediction(metadata):
            found.append((index, metadata.get("gillab")))
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_every_prediction_names_its_figure_and_the_compare_after_it_uses_that_figure(path):
    all_cells = cells(path)
    found = predictions(path)
    assert found, "a lecture without a prediction cell"
    for number, (index, about) in enumerate(found):
        assert about and "figure" in about, f"cell {index}: no metadata.gillab.figure"
        key = about["figure"]
        end = found[number + 1][0] if number + 1 < len(found) else len(all_cells)
        after = "".join(source for _, source, _, _ in all_cells[index + 1:end])
        if key is None:
            assert "answer" not in about, f"cell {index}: an answer path without a figure"
            continue
        figure = published.figure(key)  # KeyError names the known figures
        assert about.get("answer"), f"cell {index}: figure {key!r} without an answer path"
        for answer in about["answer"]:
            assert leaves(at(figure, answer)), f"cell {index}: {key}{answer} holds no number"
        assert re.search(r"figure\s*=\s*[\"']" + re.escape(key) + r"[\"']", after), \
            f"cell {index} predicts {key!r}, but no compare(..., figure={key!r}) follows it"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=os.path.basename)
def test_no_published_answer_shows_before_its_prediction(path):
    all_cells = cells(path)
    shown = []  # per cell: (figure, path) pairs it reveals, and its text
    names = {}
    for kind, source, _, outputs in all_cells:
        reveals = []
        text = source + "".join("".join(o.get("text", "")) + "".join(o.get("data", {}).get("text/plain", ""))
                                for o in outputs)
        if kind == "code":
            reveals += [(key, ()) for key in magic_figures(source)]
            try:
                tree = ast.parse(python_of(source))
            except SyntaxError:
                tree = None
            if tree is not None:
                reader = FigureReads(names)
                reader.visit(tree)
                reveals += reader.reads
        shown.append((reveals, text))
    spoiled = []
    for index, about in predictions(path):
        if not about or not about.get("figure"):
            continue
        key, answers = about["figure"], [tuple(a) for a in about["answer"]]
        numbers = [(v, re.compile(number_pattern(v))) for v in telling_numbers(key, answers)]
        for before in range(index):
            reveals, text = shown[before]
            for figure, read in reveals:
                if figure == key and any(overlaps(read, answer) for answer in answers):
                    spoiled.append(f"cell {before} shows {key}{list(read)} before prediction cell {index}")
            for value, pattern in numbers:
                if pattern.search(text):
                    spoiled.append(f"cell {before} writes {value} ({key}) before prediction cell {index}")
    assert not spoiled, "\n".join(spoiled)


def test_the_reads_follow_names_and_count_a_magic_that_prints_the_figure():
    names = {}
    reader = FigureReads(names)
    reader.visit(ast.parse('io = published.figure("io_waits")\nwalls = io["wall_s"]\nrow = walls["100"]\n'
                           'print(row.get("asyncio"))\nfor n, r in walls.items(): pass'))
    assert reader.reads == [("io_waits", ("wall_s", "100", "asyncio")), ("io_waits", ("wall_s",))]
    assert magic_figures("%gilbench --preset zlib --workers 1,2 {RUNS} -o z") == {"zlib"}
    assert magic_figures("%switchinterval --probe yield --load bigint 5ms") == {"yield_probe", "long_c_op"}
    assert magic_figures("%%gilbench --modes threads -o x\ndef job(i): pass") == set()
    assert magic_figures("%%race --threads 4 -o r") == {"race"}
    assert magic_figures("%%race --threads 4 --no-published -o r") == set()
    assert magic_figures("%%heartbeat --no-published -o hb") == set()
    assert re.search(number_pattern(1.7), "1.70 s") and not re.search(number_pattern(1.7), "11.7 s")
    assert re.search(number_pattern(6000000), "6,000,000 additions") and not re.search(number_pattern(600), "6000")
