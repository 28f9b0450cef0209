"""What an interpreter is: version, build (how it was compiled), whether the GIL is on. Run as a script it prints
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


# Debian builds the python3.X executables it ships with --enable-optimizations --with-lto on
# these architectures (its debian/rules) and leaves those flags out of sysconfig on purpose
# (changelog: "Don't propagate lto flags to the _sysconfigdata module"); its libpython is plain.
DEBIAN_OPTIMISED_MACHINES = ("x86_64", "aarch64")


def _is_debian_executable():
    """Whether this is Debian's own /usr/bin/python3.X (also inside another root)."""
    version = "%d.%d" % sys.version_info[:2]
    return (os.path.realpath(sys.executable) == "/usr/bin/python" + version and
            os.path.exists("/usr/share/doc/python%s/changelog.Debian.gz" % version))


def build():
    """How this interpreter was compiled: PGO, LTO, debug, free-threaded, and where that is known
    from (sysconfig's CONFIG_ARGS and compiler flags, or Debian's package build), with the flags."""
    var = sysconfig.get_config_var
    config_args = var("CONFIG_ARGS") or ""
    cflags = " ".join(flag for flag in (var("PY_CFLAGS"), var("PY_CFLAGS_NODIST")) if flag)
    ldflags = " ".join(flag for flag in (var("PY_LDFLAGS_NODIST"), var("LDFLAGS_NODIST")) if flag)
    found = {
        "pgo": "--enable-optimizations" in config_args or "-fprofile-use" in cflags,
        "lto": "--with-lto" in config_args or "-flto" in cflags + " " + ldflags,
        "debug": bool(var("Py_DEBUG")) or hasattr(sys, "gettotalrefcount"),
        "free_threaded": bool(var("Py_GIL_DISABLED")),
        "vendor": "Debian" if _is_debian_executable() else "",
        "flags_from": "sysconfig",
        "config_args": config_args,
        "cflags": cflags,
    }
    if found["vendor"] == "Debian" and platform.machine() in DEBIAN_OPTIMISED_MACHINES and not found["debug"]:
        found["pgo"] = found["lto"] = True
        found["flags_from"] = "Debian's package build (--enable-optimizations --with-lto, not recorded in sysconfig)"
    return found


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
        "build": build(),
    }


if __name__ == "__main__":
    sys.stdout.write(json.dumps(describe()) + "\n")
