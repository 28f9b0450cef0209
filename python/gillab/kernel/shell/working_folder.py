"""The notebook's folder importable again, as in ipykernel.

The kernelspec starts Python with -P, so the working folder is not on sys.path while the kernel
imports itself: a student's own gillab.py (or xeus_python_shell.py) there cannot shadow the
kernel's modules and stop it from starting. Once the kernel is up, IPython's own rule puts it
back (InteractiveShellApp.init_path: '' after the standard library, as ipykernel does), so the
student's modules import from the notebook's folder, and follow os.chdir, as they do there."""

from IPython.core.shellapp import InteractiveShellApp


def install():
    InteractiveShellApp(ignore_cwd=False).init_path()
