"""IPython's tracebacks (stack_data, executing) keep a parsed syntax tree per source for
the life of the process: one per failing cell, about 24 KB each. After each traceback,
what they keep for sources that are not files on disk (cells, removed cell modules) is
dropped; library files stay cached, so their sources are not parsed again."""

import os

try:
    import executing
except ImportError:  # an IPython without stack_data keeps no such cache
    executing = None


def _source_classes(cls):
    yield cls
    for sub in cls.__subclasses__():
        yield from _source_classes(sub)


def forget_cell_sources():
    # The per-class dicts are keyed by (filename, lines) and (code, id, lasti).
    for cls in _source_classes(executing.Source):
        for name, filename_of in (("__source_cache_with_lines", lambda key: key[0]),
                                  ("__executing_cache", lambda key: key[0].co_filename)):
            cache = vars(cls).get(name)
            if isinstance(cache, dict):
                for key in [key for key in cache if not os.path.isfile(filename_of(key))]:
                    del cache[key]
    # Unbounded lru_caches keyed by a source or a tree node: cheap to refill.
    for cached in (executing.Source.statements_at_line, executing.executing.statement_containing_node):
        cached.cache_clear()


def install(shell):
    if executing is None:
        return
    record = shell._showtraceback

    def _showtraceback(etype, evalue, stb):
        record(etype, evalue, stb)
        try:
            forget_cell_sources()
        except Exception:
            pass  # another executing's layout: the error report matters more than the bound

    shell._showtraceback = _showtraceback
