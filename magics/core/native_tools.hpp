// The kernel's native instruments as the measuring loops (python/gillab/
// runners/task_*.py) take them: one namespace handed to a runner's
// measure(request, progress, tools) when it runs in the kernel. In a child
// interpreter the native module cannot load: tools is None there and the
// runner uses its Python stand-ins.
#pragma once

#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    // The instruments' Python types on the `_gillab` module (GilProbe).
    void bind_native_tools(py::module_& m);

    // probe(schedule, every_s, capacity): a native GIL probe with start(),
    // stop() and report() (python_probe.hpp's native_probe_report).
    py::object native_tools();
}
