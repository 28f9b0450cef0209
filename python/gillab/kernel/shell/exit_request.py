"""exit() and quit() as in ipykernel: an "ask_exit" payload in the reply, then the kernel
ends (the notebook server restarts it); exit(keep_kernel=True) only sends the payload."""

from IPython.core.autocall import ZMQExitAutocall


def install(shell):
    shell.keepkernel_on_exit = None

    def ask_exit():
        keep = bool(shell.keepkernel_on_exit)
        shell.exit_now = not keep
        shell.payload_manager.write_payload({"source": "ask_exit", "keepkernel": keep})

    shell.ask_exit = ask_exit
    shell.exiter = ZMQExitAutocall(shell)
    for name in ("exit", "quit"):
        shell.user_ns[name] = shell.user_ns_hidden[name] = shell.exiter
