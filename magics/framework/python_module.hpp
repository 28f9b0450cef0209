// The magics' part of the `_gillab` extension module: the result type,
// every magic's bindings, and run/help/magics for the gillab package.
#pragma once

#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    void bind_magics(py::module_& m);
}
