"""IPython's own log lines go to the kernel's terminal (log_fd, the original stderr), not
into a notebook."""

import logging
import os


def install(app, log_fd):
    handler = logging.StreamHandler(os.fdopen(os.dup(log_fd), "w", buffering=1, closefd=True))
    app.log.handlers = [handler]
