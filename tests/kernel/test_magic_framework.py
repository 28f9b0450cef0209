"""The native magic framework, seen through %gilinfo: registration, help,
one-line usage errors, the mime bundle and the result object."""

import json

from result_bundle import RESULT_MIME


def test_lsmagic_lists_the_native_magics_under_their_class(kernel):
    listing = kernel.ok("%lsmagic").value()
    assert "%gilinfo" in listing
    owner = kernel.eval("type(get_ipython().magics_manager.magics['line']['gilinfo'].__self__).__name__")
    assert owner == "GillabMagics"


def test_question_mark_shows_the_manual(kernel):
    result = kernel.ok("%gilinfo?")
    pages = [p for p in result.reply["content"]["payload"] if p.get("source") == "page"]
    text = pages[0]["data"]["text/plain"]
    assert "%gilinfo" in text and "--out" in text and "switch interval" in text


def test_bad_argument_is_one_line_error_and_the_kernel_goes_on(kernel):
    result = kernel.execute("%gilinfo --workers 3")
    assert result.status == "error"
    content = result.reply["content"]
    assert content["ename"] == "UsageError"
    assert "'--workers'" in content["evalue"] and "usage: %gilinfo" in content["evalue"]
    assert len(content["traceback"]) == 1 and "\n" not in content["traceback"][0]
    assert result.stream("stderr") == ""
    assert kernel.eval("1+1") == 2


def test_bad_output_name_is_refused(kernel):
    result = kernel.execute("%gilinfo -o 1abc")
    assert result.reply["content"]["ename"] == "UsageError"
    assert "'1abc'" in result.reply["content"]["evalue"]


def test_output_name_cannot_replace_the_sessions_own_dunders(kernel):
    result = kernel.execute("%gilinfo -o __builtins__")
    assert result.reply["content"]["ename"] == "UsageError"
    assert kernel.eval("len('still works')") == 11


def test_magic_calls_leave_no_import_or_line_caches_behind(kernel):
    # One entry per call in these caches would grow a long session's memory.
    kernel.ok("import linecache, re, sys\n"
              "def cached(): return sum(bool(re.search(r'gillab-[0-9]+-|gillab_cell_', str(key)))\n"
              "                      for key in [*sys.path_importer_cache, *linecache.cache])")
    kernel.execute("%%gilbench --modes sequential --jobs 1 --repeats 1\nraise ValueError('job fails')")
    before = kernel.eval("cached()")
    for _ in range(3):
        kernel.execute("%%gilbench --modes sequential --jobs 1 --repeats 1\nraise ValueError('job fails')")
    assert kernel.eval("cached()") <= before


def test_result_renders_as_one_bundle(kernel):
    data = kernel.ok("%gilinfo").result_data()
    assert {"text/plain", "text/html", RESULT_MIME} <= set(data)
    # Stock JupyterLab ranks application/json first: it would show a JSON tree, not the table.
    assert "application/json" not in data
    assert "switch interval" in data["text/plain"]
    assert not data["text/plain"].strip().replace(".", "").isdigit()
    assert "<table>" in data["text/html"]
    payload = data[RESULT_MIME]
    assert payload["schema"] == "gillab.result" and payload["schema_version"] == 1
    assert payload["magic"] == "gilinfo"
    assert payload["data"]["python_version"].startswith("3.11")
    json.dumps(payload)


def test_gilinfo_fields_match_the_interpreter(kernel):
    kernel.ok("%gilinfo -o info")
    assert kernel.eval("info.gil_enabled") is True
    assert kernel.eval("info.free_threaded_build") is False
    assert kernel.eval("info.switch_interval_ms == __import__('sys').getswitchinterval() * 1000")
    assert kernel.eval("info.cpu_count == __import__('os').cpu_count()")
    assert kernel.eval("info.default_thread_pool_workers == min(32, __import__('os').cpu_count() + 4)")
    assert kernel.eval("'fork' in info.start_methods and 'spawn' in info.start_methods")


def test_gilinfo_follows_a_changed_switch_interval(kernel):
    kernel.ok("import sys; _old = sys.getswitchinterval(); sys.setswitchinterval(0.001)")
    try:
        kernel.ok("now = %gilinfo")
        assert abs(kernel.eval("now.switch_interval_ms") - 1.0) < 1e-9
    finally:
        kernel.ok("sys.setswitchinterval(_old)")


def test_result_object_offers_rows_dict_and_dataframe(kernel):
    kernel.ok("%gilinfo -o info")
    assert kernel.eval("type(info).__name__") == "Result"
    assert kernel.eval("info.rows[0]['property']") == "Python"
    assert kernel.eval("info.to_dict()['magic']") == "gilinfo"
    assert kernel.eval("info.to_dataframe().shape[0] == len(info.rows)")
    assert "Python" in kernel.ok("print(repr(info))").stream("stdout")
    error = kernel.execute("info.no_such_field")
    assert error.reply["content"]["ename"] == "AttributeError"
    assert "its fields" in error.reply["content"]["evalue"]


def test_a_cell_that_defines_a_function_but_not_the_one_the_magic_needs_is_a_usage_error(kernel):
    # a misspelt `def job` would otherwise be timed as the job: defining jb, over and over
    cell = "%%gilbench --modes sequential --jobs 2 --repeats 1 --warmup 0\ndef jb(i):\n    return sum(range(10_000))\n"
    result = kernel.execute(cell)
    assert result.status == "error"
    content = result.reply["content"]
    assert content["ename"] == "UsageError" and "\n" not in content["evalue"], content
    assert "jb()" in content["evalue"] and "job(i)" in content["evalue"] and "did you mean job" in content["evalue"]
    assert result.stream("stderr") == ""
    # a body without any def is still the job
    kernel.ok("%%gilbench --modes sequential --jobs 2 --repeats 1 --warmup 0 -o r\nsum(range(10_000))\n")
    # and so is a body that defines a helper and calls it
    kernel.ok("%%gilbench --modes sequential --jobs 2 --repeats 1 --warmup 0\ndef helper():\n    return 1\nhelper()\n")
    assert kernel.eval("1+1") == 2


def completions(kernel, code):
    msg_id = kernel.client.complete(code, len(code))
    while True:
        reply = kernel.client.get_shell_msg(timeout=30)
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply["content"]["matches"]


def test_tab_on_a_result_object_lists_its_accessors_and_fields(kernel):
    kernel.ok("%%gilbench --modes sequential,threads --workers 2 --jobs 2 --repeats 1 --warmup 0 -o bench\n"
              "def job(i):\n    return i\n")
    listed = completions(kernel, "bench.")
    for accessor in ("speedup", "wall", "cpu", "best", "run", "rows", "notes", "to_dict", "runs", "cpu_count"):
        assert any(match.endswith(accessor) for match in listed), (accessor, listed)
    assert any(match.endswith("speedup") for match in completions(kernel, "bench.spe"))


def test_help_on_a_result_object_documents_every_accessor(kernel):
    kernel.ok("%gilinfo -o info")
    page = kernel.ok("help(type(info))").stream("stdout")
    for accessor in ("rows", "notes", "to_dict", "to_dataframe", "from_dict"):
        assert accessor in page
    kernel.ok("%%race --modes unlocked,lock --threads 2 --iterations 1000 --runs 1 -o race\ncounter = 0\ncounter += 1\n")
    page = kernel.ok("help(race)").stream("stdout")
    for accessor in ("lost", "lost_percent", "wall", "cost", "run"):
        assert f"{accessor}(self, mode=" in page
    assert "median updates lost over a mode's runs" in page.lower()
