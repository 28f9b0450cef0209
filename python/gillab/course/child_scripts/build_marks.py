"""What an interpreter says about itself: its version, switch interval, and the marks of a
free-threaded build (sys.abiflags, sysconfig's Py_GIL_DISABLED, sys._is_gil_enabled()). Prints JSON."""

import json
import sys
import sysconfig

is_gil_enabled = getattr(sys, "_is_gil_enabled", None)
print(json.dumps({"version": sys.version.split()[0], "switch_interval_s": sys.getswitchinterval(),
                  "abiflags": sys.abiflags, "py_gil_disabled": sysconfig.get_config_var("Py_GIL_DISABLED"),
                  "gil_enabled": True if is_gil_enabled is None else is_gil_enabled()}))
