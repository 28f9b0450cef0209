from gillab.kernel.shell import exit_request


def test_exit_asks_the_front_end_and_ends_the_kernel(shell):
    exit_request.install(shell)
    shell.exit_now = False
    shell.run_cell("exit()")
    assert shell.payload_manager.read_payload() == [{"source": "ask_exit", "keepkernel": False}]
    assert shell.exit_now is True


def test_exit_keep_kernel_only_asks(shell):
    exit_request.install(shell)
    shell.payload_manager.clear_payload()
    shell.exit_now = False
    shell.run_cell("quit(keep_kernel=True)")
    assert shell.payload_manager.read_payload() == [{"source": "ask_exit", "keepkernel": True}]
    assert shell.exit_now is False
