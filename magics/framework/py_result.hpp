// The Python face of a Result: what exercise cells assert on.
// Like IPython's TimeitResult: its repr is the human table, its fields and
// methods are for code.
#pragma once

#include <pybind11/pybind11.h>

#include "render/result.hpp"

namespace gillab
{
    namespace py = pybind11;

    // Registers the Result class on a module.
    void bind_result(py::module_& m);

    py::object wrap_result(Result result);

    // The `python=` argument of every result's lookups: the index in a
    // result's "interpreters" of the one named as --python named it
    // ("3.13t", "kernel") or by its label; None is the first. KeyError
    // naming what was measured otherwise.
    std::size_t interpreter_index(const nl::json& interpreters, const py::object& python);
}
