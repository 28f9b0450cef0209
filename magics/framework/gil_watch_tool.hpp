// The GIL sampler (instruments/gil_watch) as a tool a runner holds:
// `with tools.watch(period_s, blame, follow_caller) as watch:` around the code
// it measures; the runner hands the watch back in its answer and the magic
// reads the record (threads, turns, the holders' frames: native data, too
// rich for JSON) with watch_record. The sampler stops and its thread hook is
// removed when the block ends, however it ends.
#pragma once

#include <pybind11/pybind11.h>

#include "instruments/gil_watch.hpp"

namespace gillab
{
    namespace py = pybind11;

    // GilWatch on the `_gillab` module.
    void bind_gil_watch_tool(py::module_& m);

    // The GilWatch type, for the runners' native tools (bound first).
    py::object gil_watch_type();

    // What a finished GilWatch recorded. Throws std::runtime_error when `tool`
    // is not a GilWatch whose block has ended.
    const gil_watch_record& watch_record(py::handle tool);
}
