// Stopping the Python threads a magic's jobs left running, as the tools the
// magic state guard (gillab/magics/state_guard.py) is handed: the native
// functions of workers/python_threads, which the interrupt stops a cell's
// threads with too, taking and giving threading.Thread objects.
#pragma once

#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    // `_gillab.thread_tools`, a namespace of
    //   live_threads() -> the live threading.Thread objects that have an ident;
    //   busy_threads(threads, window_s, share) -> those that used at least `share` of a CPU
    //       over `window_s` (the GIL released meanwhile);
    //   raise_in_threads(threads, exception_type): raised at each one's next bytecode;
    //   wait_for_threads(threads, budget_s) -> those still alive after up to `budget_s`.
    void bind_thread_tools(py::module_& m);

    // The same namespace, for the state guard (bound first).
    py::object thread_tools();
}
