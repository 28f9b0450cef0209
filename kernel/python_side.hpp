// Every call the kernel makes into the gillab package, as typed C++ functions: the one file of
// kernel/ that names the package's modules (python/gillab/seam.py lists them; tools/include-graph
// fails on a package import anywhere else). Every function needs the GIL.
#pragma once

#include <sys/types.h>

#include <vector>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

namespace gillab::kernel_python_side
{
    namespace py = pybind11;

    // gillab.kernel.shell.install: the changes to xeus-python's shell (`native` is `_gillab`).
    void install_shell_changes(const py::object& shell, const py::object& app, int log_fd, const py::object& native);

    // gillab.kernel.shell.streams.repair: stdout and stderr print again after a cell.
    void repair_streams();

    // gillab.kernel.launch.finish: the kernel's Python half at shutdown.
    void finish_launch();

    // gillab.kernel.debugging.loaded_modules: the Debug Adapter's `modules` answer.
    nlohmann::json loaded_modules(int start, int count);

    // gillab.runners.process_tree: the kernel's live child processes, and stopping those a cell started.
    std::vector<pid_t> live_children();
    std::vector<pid_t> stop_children_started_since(const std::vector<pid_t>& before);
}
