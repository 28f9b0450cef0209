"""gillab.course.children and child_scripts: scripts in fresh interpreters."""

from gillab.course.children import run_file


def test_run_file_reports_exit_code_output_and_distinct_error_lines():
    done = run_file("print('hello')\nraise RuntimeError('stop here')\n", name="fails.py")
    assert done.returncode == 1 and done.stdout == "hello\n"
    assert done.error_lines == ["RuntimeError: stop here"]
    assert repr(done).startswith("exit code 1\nhello\n  child said: RuntimeError: stop here")
    assert run_file("import helper\nprint(helper.X)", files={"helper.py": "X = 7"}).stdout == "7\n"


def test_child_scripts_print_their_json_under_any_interpreter():
    from gillab.course.children import run_json
    loops = run_json("/usr/bin/python3", "tight_loops", 2000)
    assert set(loops) == {"additions", "calls"} and all(s > 0 for s in loops.values())
    back = run_json("/usr/bin/python3", "gil_back_on", gil="1")
    assert back["gil"] is True and back["speedup"] > 0 and back["version"].startswith("3.11")
    owned = run_json("/usr/bin/python3", "ownership", 2000)
    assert {"foreign_extra", "shared_speedup", "two_cores"} <= set(owned)


def test_run_json_says_in_one_line_why_a_child_gave_nothing(capsys):
    from gillab.course.children import run_json
    assert run_json("/usr/bin/python3", "no_such_script") is None
    printed = capsys.readouterr().out.strip().splitlines()
    assert len(printed) == 1 and printed[0].startswith("/usr/bin/python3 failed:")
