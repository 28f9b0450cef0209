// The Python face of a Result: what exercise cells assert on.
// Like IPython's TimeitResult: its repr is the human table, its fields and
// methods are for code.
#pragma once

#include <pybind11/pybind11.h>

#include "result.hpp"

namespace gillab
{
    namespace py = pybind11;

    // Registers the Result class on a module.
    void bind_result(py::module_& m);

    py::object wrap_result(Result result);
}
