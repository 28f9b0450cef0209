// The kernel's changes to xeus-python's IPython shell. The Python side is the
// gillab.kernel.shell package (python/gillab/kernel/shell/, one module per change);
// here are the native hooks it calls and the call that installs it.
#pragma once

#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    // gillab.kernel.shell.install(shell, app, log_fd, _gillab): streams on fds 1
    // and 2, error names, exit(), input(), displays from threads, IPython's
    // log on the kernel's terminal, the magics.
    void install_shell_changes(py::object shell, py::object app, int log_fd);

    // On the `_gillab` module: publish_from_thread(msg_type, content) through
    // the IOPub gate, and request_input(prompt, password) over stdin.
    void bind_kernel_hooks(py::module_& m);

    // Whether the running request lets request_input ask the front end.
    void allow_stdin(bool allowed);
}
