"""The result object every magic returns: a table for people, fields and lookups for code.

Like IPython's TimeitResult, its repr is the human table and its accessors are for code. The
table, the chart and the MIME bundle are drawn in C++ (`_gillab`); this class holds the plain
record the magic answered with (its `to_dict()`) and hands display back to C++.
"""

import copy


class Result:
    """A gillab measurement: `rows`, `notes`, `title` and `magic`, the magic's own figures as
    attributes (`info.switch_interval_ms`; `dir(result)` lists them), `to_dict()` and
    `to_dataframe()`. Shown in a notebook as the magic's table and chart."""

    def __init__(self, record, presentation=None):
        """`record`: the magic's answer as plain data (the application/vnd.gillab.result+json
        payload, which `to_dict()` gives back), or None to read it from `presentation`, the
        native object that draws the table and chart (None for a result loaded from saved data)."""
        self._saved = record
        self._presentation = presentation

    @property
    def _record(self):
        # Made on first use: most magic calls are shown, stored or dropped without a field read.
        if self._saved is None:
            import _gillab
            self._saved = _gillab.record(self._presentation)
        return self._saved

    @classmethod
    def from_dict(cls, record):
        """A result object over a saved `to_dict()` (or a notebook's gillab result output)."""
        return cls(copy.deepcopy(record))

    @property
    def magic(self):
        """The magic that measured: 'gilinfo', 'gilbench', 'race', ..."""
        return self._record["magic"]

    @property
    def title(self):
        """The table's title."""
        return self._record["title"]

    @property
    def rows(self):
        """The table as a list of dicts, one per row, keyed by column."""
        return copy.deepcopy(self._record["rows"])

    @property
    def notes(self):
        """The lines printed under the table: what to know before reading it."""
        return list(self._record["notes"])

    def to_dict(self):
        """Everything in the result as plain Python data (the application/vnd.gillab.result+json output)."""
        return copy.deepcopy(self._record)

    def to_dataframe(self):
        """The table as a pandas DataFrame."""
        try:
            import pandas
        except ImportError:
            raise RuntimeError("to_dataframe() needs pandas, which is not importable here; use rows or to_dict()") from None
        return pandas.DataFrame(self.rows)

    def __repr__(self):
        if self._presentation is None:
            return "<%s of a %s run: %s, %d rows (loaded from saved data)>" % (
                type(self).__name__, self.magic, self.title, len(self._record["rows"]))
        import _gillab
        return _gillab.text(self._presentation)

    def _repr_mimebundle_(self, include=None, exclude=None):
        """IPython's (data, metadata) form: the table as text and HTML, the chart, the record."""
        if self._presentation is None:
            return {"text/plain": repr(self)}, {}
        import _gillab
        return _gillab.mime_bundle(self._presentation, include, exclude)

    def __getattr__(self, name):
        # Only called when normal lookup fails: the magic's own figures, by name.
        if name.startswith("_") or "_saved" not in self.__dict__:
            raise AttributeError(name)
        data = self._record["data"]
        if name not in data:
            raise AttributeError("'%s' result has no field '%s'; its fields: %s" % (self.magic, name, ", ".join(data)))
        return copy.deepcopy(data[name])

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._record["data"]))

    def _data(self, name, default=None):
        return self._record["data"].get(name, default)

    def _interpreter_index(self, python):
        """The one `python=` lookup of every result: the index in the result's interpreters of
        the one `python` names as --python named it ('3.13t', 'kernel', a path) or by its label;
        None is the first measured. KeyError naming what was measured otherwise."""
        interpreters = self._data("interpreters")
        if interpreters is None:
            if python is None:
                return None
            raise KeyError("this result measured the kernel only")
        if python is None:
            return 0
        wanted = str(python)
        for index, entry in enumerate(interpreters):
            if wanted in (entry.get("requested"), entry.get("python")):
                return index
        measured = ", ".join(entry.get("requested", "?") for entry in interpreters)
        raise KeyError("no interpreter '%s' in this result; measured: %s" % (wanted, measured))
