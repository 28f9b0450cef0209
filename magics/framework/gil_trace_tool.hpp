// The exact trace of GIL hand-overs (instruments/gil_events) as a tool a
// runner holds: `with GilTrace() as trace:` around the code it measures, then
// trace.result() for the hand-overs, each wait taken apart, and each thread's
// turns. The interpreter's calls are put back when the block ends, however it
// ends.
#pragma once

#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    // GilTrace on the `_gillab` module.
    void bind_gil_trace_tool(py::module_& m);

    // The GilTrace type, for the runners' native tools (bound first).
    py::object gil_trace_type();
}
