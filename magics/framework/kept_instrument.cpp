#include "framework/kept_instrument.hpp"

#include <pybind11/functional.h>
#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    void at_interpreter_exit(std::function<void()> end)
    {
        py::module_::import("atexit").attr("register")(py::cpp_function(std::move(end)));
    }
}
