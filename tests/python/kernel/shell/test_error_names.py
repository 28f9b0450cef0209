from gillab.kernel.shell import error_names


def test_an_error_is_recorded_by_its_class_name(shell):
    error_names.install(shell)
    shell.last_error = None
    shell.run_cell("1/0")
    name, value, traceback = shell.last_error
    assert (name, value) == ("ZeroDivisionError", "division by zero")
    assert any("ZeroDivisionError" in line for line in traceback)


def test_a_usage_error_is_one_line(shell):
    error_names.install(shell)
    shell.last_error = None
    shell.run_cell("from IPython.core.error import UsageError\nraise UsageError('--workers takes numbers')")
    name, value, traceback = shell.last_error
    assert (name, value) == ("UsageError", "--workers takes numbers")
    assert len(traceback) == 1 and "UsageError" in traceback[0]
