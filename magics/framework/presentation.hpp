// What a magic call answers Python with: an opaque handle on the Result that gives it as plain
// data (render_json's record, made when first asked: most calls never read it) and draws its
// table and chart when it is shown.
// The result objects students read are Python classes over that record (gillab.results).
#pragma once

#include <string>

#include <pybind11/pybind11.h>

#include "render/result.hpp"

namespace gillab
{
    namespace py = pybind11;

    // Registers the handle's class and the functions that read it (`record`, `text`, `mime_bundle`).
    void bind_presentation(py::module_& m);

    // {"magic": its name, "presentation": the handle, "out": -o's name or None}.
    py::dict magic_answer(Result result, const std::string& out_name);
}
