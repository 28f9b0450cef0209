// What the kernel changes in the stock xeus-python IPython shell.
#pragma once

#include <string>

#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    // sys.stdout/stderr write through to fds 1 and 2 (the output capture's
    // pipes), line-buffered, so threads and children share one path.
    void install_fd_streams();

    // Error names as ipykernel gives them ("ZeroDivisionError", not
    // "<class 'ZeroDivisionError'>"); last_error = [ename, evalue, traceback].
    // UsageErrors become one-line error replies.
    void install_error_recorder(py::object shell);

    // exit() and quit() as in ipykernel: an "ask_exit" payload in the reply,
    // then the kernel ends (the notebook server restarts it);
    // exit(keep_kernel=True) only sends the payload.
    void install_exit_request(py::object shell);

    // IPython's tracebacks (stack_data, executing) cache a parsed syntax
    // tree per source for the life of the process: one per failing cell,
    // ~24 KB each. After each traceback, what they keep for sources that are
    // not files on disk (cells, removed cell modules) is dropped.
    void forget_cell_sources_after_tracebacks(py::object shell);

    // IPython's own log lines go to the kernel's terminal, not a notebook.
    void route_shell_log(py::object app, int log_fd);

    // display() from a thread other than the shell's is published through
    // the IOPub gate; from the shell thread it takes the stock path.
    void route_displays_from_threads(py::object shell);

    // input() and getpass.getpass() ask the front end (stdin channel) when
    // the running request allows it, else raise StdinNotImplementedError.
    void route_input_to_the_front_end();
    void allow_stdin(bool allowed);

    // publish_from_thread and request_input on the `_gillab` module, for
    // the glue above.
    void bind_kernel_hooks(py::module_& m);

    // The magics, through the gillab package (the one this kernel runs from).
    void load_gillab_extension(py::object shell);
}
