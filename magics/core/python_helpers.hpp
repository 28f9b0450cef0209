// Python helper code that a magic runs (a recorder loop, a load, an event-loop
// runner): executed once per process into its own namespace, then reused.
#pragma once

#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    // `source` must be a string with static storage: it is also the key.
    // Call with the GIL held. The namespace lives as long as the interpreter
    // (never destroyed, so no Python object outlives Py_Finalize in a destructor).
    py::dict& python_helpers(const char* source);
}
