"""The calibration drives the kernel as tests/kernel does: its fixtures, loaded from there."""

import importlib.util
import os

_spec = importlib.util.spec_from_file_location(
    "kernel_fixtures", os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kernel", "conftest.py"))
_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fixtures)

Kernel = _fixtures.Kernel
kernel = _fixtures.kernel
