import logging
import os

from traitlets.config import Application

from gillab.kernel.shell import shell_log


def test_the_shells_log_lines_go_to_the_log_fd():
    read_fd, write_fd = os.pipe()
    app = Application()
    try:
        shell_log.install(app, write_fd)
        app.log.setLevel(logging.WARNING)
        app.log.warning("a line for the terminal")
        for handler in app.log.handlers:
            handler.flush()
        assert b"a line for the terminal" in os.read(read_fd, 4096)
    finally:
        for handler in app.log.handlers:
            handler.close()
        os.close(read_fd)
        os.close(write_fd)
