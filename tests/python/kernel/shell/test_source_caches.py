import pytest

from gillab.kernel.shell import error_names, source_caches


def cached_cell_sources():
    found = 0
    for cls in source_caches._source_classes(source_caches.executing.Source):
        cache = vars(cls).get("__source_cache_with_lines")
        if isinstance(cache, dict):
            found += sum(1 for key in cache if key[0].startswith("<ipython-input") or "ipykernel" in key[0]
                         or key[0].startswith("<"))
    return found


@pytest.mark.skipif(source_caches.executing is None, reason="no executing module: IPython keeps no such cache")
def test_a_failing_cell_leaves_no_parsed_source_behind_and_the_error_is_still_recorded(shell):
    error_names.install(shell)
    source_caches.install(shell)
    for n in range(5):
        shell.last_error = None
        shell.run_cell(f"def f{n}():\n    return 1 / 0\nf{n}()")
        assert shell.last_error[0] == "ZeroDivisionError"
    assert cached_cell_sources() == 0
