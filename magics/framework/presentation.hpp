// What a magic call answers Python with: the Result as plain data (render_json's record),
// and an opaque handle on the Result that draws its table and chart when it is shown.
// The result objects students read are Python classes over that record (gillab.results).
#pragma once

#include <string>

#include <pybind11/pybind11.h>

#include "render/result.hpp"

namespace gillab
{
    namespace py = pybind11;

    // Registers the handle's class and the functions that present it (`text`, `mime_bundle`).
    void bind_presentation(py::module_& m);

    // {"record": render_json(result), "presentation": the handle, "out": -o's name or None}.
    py::dict magic_answer(Result result, const std::string& out_name);
}
