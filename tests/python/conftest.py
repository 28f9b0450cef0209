"""The gillab package's Python modules on their own, in Debian's python3 with the installed
package first on sys.path (no kernel): a real IPython shell where one is needed."""

import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE_DIR = os.path.join(REPO, os.environ.get("GILLAB_BUILD_DIR", "build"), "prefix", "lib", "gillab", "python")
sys.path.insert(0, PACKAGE_DIR)


@pytest.fixture
def package_dir():
    return PACKAGE_DIR


@pytest.fixture
def shell():
    """xeus-python's shell, as the kernel has it (its display publisher calls
    publish_display_data, which the kernel's native display module provides)."""
    from xeus_python_shell.display import XDisplayHook, XDisplayPublisher
    from xeus_python_shell.shell import XPythonShell
    shell = XPythonShell.instance(display_pub_class=XDisplayPublisher, displayhook_class=XDisplayHook)
    yield shell
    XPythonShell.clear_instance()
