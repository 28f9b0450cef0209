"""What the kernel says about itself, and what it leaves on disk."""

import os

from conftest import Kernel


def test_kernel_info_names_gillab_and_its_stack(kernel):
    reply = kernel.client.kernel_info(reply=True, timeout=10)["content"]
    assert reply["implementation"] == "gillab"
    assert reply["implementation_version"]
    assert reply["language_info"]["name"] == "python"
    import platform
    assert reply["language_info"]["version"] == platform.python_version()  # the client is /usr/bin/python3 too
    stack = reply["gillab"]
    assert stack["xeus"].startswith("2.4")
    assert stack["xeus_python"].startswith("0.14")
    assert stack["python"].startswith("3.11")


def test_runs_in_debians_python_not_pyenvs(kernel):
    assert kernel.eval("__import__('sys').executable") == "/usr/bin/python3"
    assert ".pyenv" not in kernel.eval("__import__('sys').prefix")


def test_writes_no_stray_files_in_the_working_folder(tmp_path):
    k = Kernel(cwd=str(tmp_path))
    try:
        k.ok("print('something'); 1/1")
        k.execute("1/0")
    finally:
        k.shutdown()
    assert os.listdir(tmp_path) == []


def test_top_level_await_runs(kernel):
    assert kernel.eval("import asyncio\nawait asyncio.sleep(0.01)\n'awaited'") == "awaited"


def test_error_reply_names_the_exception_class(kernel):
    result = kernel.execute("{}['missing']")
    assert result.status == "error"
    assert result.reply["content"]["ename"] == "KeyError"
    assert result.of_type("error")[0]["content"]["ename"] == "KeyError"


def test_a_cell_that_silences_tracebacks_still_fails(fresh_kernel):
    # A grader must not score a failing cell as passed because it hid its traceback.
    fresh_kernel.ok("get_ipython().showtraceback = lambda *a, **k: None")
    result = fresh_kernel.execute("1 / 0")
    assert result.status == "error"
    assert result.reply["content"]["ename"] == "ZeroDivisionError"
    assert result.of_type("error"), "the failure is shown even without a traceback"
    assert fresh_kernel.eval("1 + 1") == 2


def test_kernel_survives_binary_junk_on_stdout(kernel):
    result = kernel.ok("import os; os.write(1, b'ok \\xff\\xfe junk\\n')")
    assert "ok" in result.stream("stdout")
    assert "\ufffd" in result.stream("stdout")
    assert kernel.eval("1+1") == 2


def test_input_asks_the_front_end(kernel):
    msg_id = kernel.client.execute("answer = input('name? ')\nanswer.upper()", allow_stdin=True)
    request = kernel.client.get_stdin_msg(timeout=10)
    assert request["content"]["prompt"] == "name? ", request["content"]
    kernel.client.input("ada")
    assert kernel.shell_reply(msg_id, timeout=10)["content"]["status"] == "ok"
    assert kernel.eval("answer") == "ada"


def test_input_without_stdin_support_is_a_clear_error(kernel):
    result = kernel.execute("input('x')", allow_stdin=False)
    assert result.reply["content"]["ename"] == "StdinNotImplementedError"
    assert kernel.eval("1+1") == 2
