"""display() from a thread other than the shell's is published through the kernel's IOPub
gate (publish_from_thread, native), attributed to the latest cell; from the shell thread it
takes the stock path. Pending stream text is flushed first, so it stays before the display."""

import sys
import threading


def _flush_streams():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass  # a student may have closed or replaced it


def install(shell, publish_from_thread):
    stock = shell.display_pub.publish_display_data

    def publish_display_data(data, metadata=None, transient=None, update=False):
        _flush_streams()
        if threading.current_thread() is threading.main_thread():
            stock(data, metadata, transient, update)
        else:
            content = {"data": data, "metadata": metadata or {}, "transient": transient or {}}
            publish_from_thread("update_display_data" if update else "display_data", content)

    shell.display_pub.publish_display_data = publish_display_data
