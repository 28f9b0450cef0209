"""What the kernel's debugger answers itself, without debugpy: the modules a
Debug Adapter Protocol `modules` request lists (as ipykernel answers it)."""

import sys


def loaded_modules(start=0, count=0):
    """The imported modules that have a source file, from `start`, at most
    `count` of them (0: all): the body of a `modules` response."""
    modules = [{"id": name, "name": name, "path": module.__file__}
               for name, module in list(sys.modules.items())
               if isinstance(getattr(module, "__file__", None), str) and module.__file__.endswith(".py")]
    end = start + count if count else len(modules)
    return {"modules": modules[start:end], "totalModules": len(modules)}
