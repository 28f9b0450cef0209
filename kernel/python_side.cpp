#include "python_side.hpp"

#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

namespace gillab::kernel_python_side
{
    void install_shell_changes(const py::object& shell, const py::object& app, int log_fd, const py::object& native)
    {
        py::module_::import("gillab.kernel.shell").attr("install")(shell, app, log_fd, native);
    }

    void repair_streams()
    {
        py::module_::import("gillab.kernel.shell.streams").attr("repair")();
    }

    void finish_launch()
    {
        py::module_::import("gillab.kernel.launch").attr("finish")();
    }

    nlohmann::json loaded_modules(int start, int count)
    {
        return py::module_::import("gillab.kernel.debugging").attr("loaded_modules")(start, count).cast<nlohmann::json>();
    }

    std::vector<pid_t> live_children()
    {
        return py::module_::import("gillab.runners.process_tree").attr("live_descendants")().cast<std::vector<pid_t>>();
    }

    std::vector<pid_t> stop_children_started_since(const std::vector<pid_t>& before)
    {
        py::module_ process_tree = py::module_::import("gillab.runners.process_tree");
        const auto started = process_tree.attr("started_since")(before).cast<std::vector<pid_t>>();
        process_tree.attr("stop")(started);
        return started;
    }
}
