"""input() and getpass.getpass() ask the front end over the protocol's stdin channel
(request_input, native), which raises StdinNotImplementedError when the running request
does not allow it."""

import builtins
import getpass


def install(request_input):
    def input(prompt=""):
        return request_input(str(prompt), False)

    def getpass_(prompt="Password: ", stream=None):
        return request_input(str(prompt), True)

    builtins.input = input
    getpass.getpass = getpass_
