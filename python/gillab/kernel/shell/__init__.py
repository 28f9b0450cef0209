"""What the gillab kernel changes in xeus-python's IPython shell, one concern per module.

The kernel (kernel/interpreter.cpp) calls install() once, after the stock shell exists and
before the first request; a stock ipykernel never imports this package.
"""

from . import error_names, exit_request, forked_copy, shell_log, source_caches, stdin, streams, thread_displays, working_folder


def install(shell, app, log_fd, native):
    """native: the `_gillab` module, whose publish_from_thread and request_input reach the
    kernel's IOPub gate and stdin channel."""
    streams.install()
    error_names.install(shell)
    source_caches.install(shell)  # wraps the recorder that error_names installed
    forked_copy.install(shell)
    exit_request.install(shell)
    shell_log.install(app, log_fd)
    thread_displays.install(shell, native.publish_from_thread)
    stdin.install(native.request_input)
    working_folder.install()

    from gillab import extension
    extension.load_ipython_extension(shell)
