"""Which lecture cells read which published figure, from the notebooks' JSON alone (no kernel).

A cell reads a figure when its code calls `published.figure(KEY)` or `published.cite(KEY)`,
passes `figure=KEY` (`compare`), calls a `gillab.course` helper that reads KEY itself, or runs a
magic whose note prints KEY. The order test (predict before the reveal) and
`tools/published-figures` (the table of docs/lectures.md) both read cells through here."""

import ast
import json
import pathlib
import re

COURSE = pathlib.Path(__file__).resolve().parent

# What each measuring magic prints beside its own run (see published.for_magic and the magics' notes).
PRESET_FIGURES = {"cpu": {"cpu_pools"}, "io": {"io_waits"}, "sleep": {"sleeps", "thread_scaling_io"},
                  "zlib": {"zlib"}, "startup": {"pool_startup"}, "hashlib-small": {"hashlib_threshold"},
                  "hashlib-large": {"hashlib_threshold"}}
ANY = "*"
MAGIC_RESULT = re.compile(r"^(\s*[\w.]+\s*=\s*)[%!].*$")


def magic_figures(source):
    """The figures a cell's magic prints in full: {key}."""
    words = source.lstrip().split("\n", 1)[0].split()
    if not words or not words[0].startswith("%"):
        return set()
    name = words[0].lstrip("%")

    def option(long, short):
        for flag in (f"--{long}", f"-{short}"):
            if flag in words[:-1]:
                return words[words.index(flag) + 1]
        return None

    if name == "gilbench":
        return set(PRESET_FIGURES.get(option("preset", "x"), set()))
    if name == "heartbeat" and not words[0].startswith("%%"):
        return set()  # start / stop: the span's report carries no published note
    if name in ("race", "heartbeat"):
        return set() if "--no-published" in words else {name}
    if name == "switchinterval":
        shown = {"latency_dial": "sleep", "yield_probe": "yield"}
        probe = option("probe", "p") or "sleep"
        found = {key for key, wanted in shown.items() if wanted == probe}
        if option("load", "l") == "bigint":
            found.add("long_c_op")
        if "--timeline" in words or "-t" in words:
            found.add("ownership")
        return found
    return set()


def python_of(source):
    """A code cell as Python: a cell magic's first line and line magics dropped (a name bound
    to a line magic's result is bound to None)."""
    lines = source.split("\n")
    if lines and lines[0].lstrip().startswith("%%"):
        lines = lines[1:]
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else MAGIC_RESULT.sub(r"\1None", line) for line in lines)


def parsed(source):
    try:
        return ast.parse(python_of(source))
    except SyntaxError:
        return None


def literal_key(call, name):
    """KEY when `call` is `published.NAME("KEY", ...)` (or plain `NAME("KEY")`), else None."""
    func = call.func
    named = (isinstance(func, ast.Attribute) and func.attr == name and isinstance(func.value, ast.Name)
             and func.value.id in ("published", "_published")) or (isinstance(func, ast.Name) and func.id == name)
    if named and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str):
        return call.args[0].value
    return None


def direct_keys(tree):
    """Figures a piece of code names itself: published.figure / published.cite / figure=KEY."""
    keys = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            keys |= {k for k in (literal_key(node, "figure"), literal_key(node, "cite")) if k}
            keys |= {kw.value.value for kw in node.keywords
                     if kw.arg == "figure" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str)}
    return keys


def helper_figures(course=COURSE):
    """{module: {function: {key}}} of gillab.course's helpers that read a figure, following calls
    between functions of one module."""
    found = {}
    for path in sorted(course.glob("*.py")):
        if path.stem in ("published", "figure_reads", "__init__"):
            continue
        functions = {node.name: node for node in ast.parse(path.read_text(encoding="utf-8")).body
                     if isinstance(node, ast.FunctionDef)}
        own = {name: direct_keys(node) for name, node in functions.items()}
        calls = {name: {n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
                        and n.func.id in functions} for name, node in functions.items()}
        changed = True
        while changed:
            changed = False
            for name in functions:
                merged = own[name].union(*(own[c] for c in calls[name]))
                changed, own[name] = changed or merged != own[name], merged
        reading = {name: keys for name, keys in own.items() if keys}
        if reading:
            found[path.stem] = reading
    return found


class Bindings:
    """The names a notebook's imports bind to gillab.course modules and helpers, kept from cell
    to cell as the kernel keeps its globals."""

    def __init__(self, helpers):
        self.helpers, self.modules, self.functions = helpers, {}, {}

    def learn(self, tree):
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "gillab.course":
                for alias in node.names:
                    self.modules[alias.asname or alias.name] = alias.name
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("gillab.course."):
                module = node.module.rsplit(".", 1)[1]
                for alias in node.names:
                    self.functions[alias.asname or alias.name] = (module, alias.name)

    def through(self, tree):
        """{key: module} of the figures this code reads through a helper."""
        found = {}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func, target = node.func, None
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in self.modules:
                target = (self.modules[func.value.id], func.attr)
            elif isinstance(func, ast.Name) and func.id in self.functions:
                target = self.functions[func.id]
            if target:
                for key in self.helpers.get(target[0], {}).get(target[1], ()):
                    found.setdefault(key, target[0])
        return found


def notebook_reads(path, helpers=None):
    """[(cell index, cell id, key, how)] of every figure a notebook's cells read, in cell order;
    how is "" (the cell's own code), "through gillab.course.MODULE" or "%MAGIC's note"."""
    with open(path, encoding="utf-8") as f:
        cells = json.load(f)["cells"]
    bindings = Bindings(helper_figures() if helpers is None else helpers)
    reads = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        for key in sorted(magic_figures(source)):
            reads.append((index, cell.get("id"), key, f"`%{source.split()[0].lstrip('%')}`'s note"))
        tree = parsed(source)
        if tree is None:
            continue
        bindings.learn(tree)
        own = direct_keys(tree)
        reads += [(index, cell.get("id"), key, "") for key in sorted(own)]
        reads += [(index, cell.get("id"), key, f"through `gillab.course.{module}`")
                  for key, module in sorted(bindings.through(tree).items()) if key not in own]
    return reads
