// The magics' native entry points on the `_gillab` extension module
// (kernel/module.cpp), which the gillab kernel and `%load_ext gillab` share.
#include "framework/python_module.hpp"

#include <pybind11/stl.h>

#include "framework/args.hpp"
#include "framework/gil_trace_tool.hpp"
#include "framework/gil_watch_tool.hpp"
#include "instruments/budget.hpp"
#include "framework/runner.hpp"
#include "framework/progress.hpp"
#include "framework/presentation.hpp"
#include "framework/python_side.hpp"
#include "framework/registry.hpp"
#include "framework/thread_tools.hpp"
#include "workers/sid_root.hpp"

namespace
{
    using namespace pybind11::literals;

    const char* kind_name(gillab::magic_kind kind)
    {
        switch (kind)
        {
            case gillab::magic_kind::line: return "line";
            case gillab::magic_kind::cell: return "cell";
            default: return "line_cell";
        }
    }
}

namespace gillab
{
    void bind_magics(py::module_& m)
    {
        m.doc() = "gillab's native magics: parsing, native instruments, statistics and rendering in C++; "
                  "the timed loops are Python runners handed those instruments";
        gillab::bind_presentation(m);
        gillab::bind_budget(m);
        gillab::bind_runner_tools(m);
        gillab::bind_gil_trace_tool(m);
        gillab::bind_gil_watch_tool(m);
        gillab::bind_thread_tools(m);
        gillab::set_kernel_describer(&python_side::describe_kernel_interpreter);
        gillab::bind_progress(m);

        // A bad argument is the student's typo, not a bug: IPython shows a
        // UsageError as one line, without a traceback.
        py::register_exception_translator([](std::exception_ptr error) {
            try
            {
                if (error) std::rethrow_exception(error);
            }
            catch (const gillab::usage_error& e)
            {
                py::object usage_error = py::module_::import("IPython.core.error").attr("UsageError");
                // Decoded leniently: a message that is not valid UTF-8 must
                // not turn into an empty one.
                const std::string message = e.what();
                py::object text = py::reinterpret_steal<py::object>(
                    PyUnicode_DecodeUTF8(message.data(), static_cast<Py_ssize_t>(message.size()), "replace"));
                PyErr_SetObject(usage_error.ptr(), text.ptr());
            }
        });

        m.def(
            "magics", [] {
                std::vector<std::pair<std::string, std::string>> out;
                for (const auto& magic : gillab::all_magics()) out.emplace_back(magic.name, kind_name(magic.kind));
                return out;
            },
            "(name, kind) of every magic");
        m.def(
            "help", [](const std::string& name) {
                for (const auto& magic : gillab::all_magics())
                {
                    if (magic.name == name) return magic.parser.help();
                }
                throw gillab::usage_error("no gillab magic named '" + name + "'");
            },
            "name"_a);
        m.def("run", &gillab::run_magic, "name"_a, "line"_a, "cell"_a, "user_ns"_a);
        m.def("interpreter_command", &gillab::interpreter_command, "executable"_a, "writable"_a = std::vector<std::string>{}, "workdir"_a = "",
              "the argv that starts `executable` as the magics' --python does (bubblewrap for Debian unstable's)");
    }
}
