import builtins
import getpass

import pytest

from gillab.kernel.shell import stdin


@pytest.fixture
def asked():
    saved = builtins.input, getpass.getpass
    questions = []
    stdin.install(lambda prompt, password: questions.append((prompt, password)) or "answer")
    yield questions
    builtins.input, getpass.getpass = saved


def test_input_and_getpass_ask_through_the_native_request(asked):
    assert input("name? ") == "answer"
    assert getpass.getpass() == "answer"
    assert asked == [("name? ", False), ("Password: ", True)]


def test_a_refused_request_reaches_the_caller(asked):
    from IPython.core.error import StdinNotImplementedError

    def refuse(prompt, password):
        raise StdinNotImplementedError("no stdin here")
    stdin.install(refuse)
    with pytest.raises(StdinNotImplementedError):
        input()
