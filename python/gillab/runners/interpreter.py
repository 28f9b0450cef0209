"""What an interpreter is: version, build, whether the GIL is on. Run as a script it prints
that as JSON (how the kernel probes an interpreter before using it); child.py puts it in every
answer. Plain syntax on purpose, so that even old interpreters answer the probe."""

import json
import os
import platform
import sys
import sysconfig

try:
    from . import start_method  # as gillab.runners.interpreter, in the kernel
except (ImportError, ValueError):  # run as a script from this folder (ValueError: Python 2's wording)
    import start_method


def _default_start_method():
    try:
        return start_method.current()
    except AttributeError:  # before 3.4 multiprocessing had no start methods: always fork
        return "fork"


def describe():
    free_threaded = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    is_gil_enabled = getattr(sys, "_is_gil_enabled", None)
    return {
        "executable": sys.executable,
        "implementation": platform.python_implementation(),
        "version": platform.python_version(),
        "version_info": list(sys.version_info[:3]),
        "abiflags": getattr(sys, "abiflags", ""),
        "free_threaded_build": free_threaded,
        "gil_enabled": bool(is_gil_enabled()) if is_gil_enabled else True,
        "switch_interval_s": sys.getswitchinterval() if hasattr(sys, "getswitchinterval") else None,
        "cpu_count": os.cpu_count() if hasattr(os, "cpu_count") else None,
        "default_start_method": _default_start_method(),
    }


if __name__ == "__main__":
    sys.stdout.write(json.dumps(describe()) + "\n")
