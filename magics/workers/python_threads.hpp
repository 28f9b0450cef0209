// Python threads started since a moment, and stopping them: the one
// mechanism behind the interrupt (what an interrupted cell started) and the
// magic state guard (what a magic's jobs left running; framework/thread_tools
// hands these functions to gillab/magics/state_guard.py).
#pragma once

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

namespace gillab
{
    struct python_thread
    {
        unsigned long ident = 0;
        unsigned long native_id = 0;
        std::string name;
    };

    // A started threading.Thread as the functions below take it (GIL held).
    python_thread python_thread_of(PyObject* thread);

    // The live threads threading knows, as threading.Thread objects; one not
    // yet given an ident (just starting) is left out (GIL held).
    pybind11::list live_thread_objects();

    // The same threads as python_thread (GIL held).
    std::vector<python_thread> python_threads();
    std::set<unsigned long> python_thread_idents();

    // The live threads not in `before` (GIL held).
    std::vector<python_thread> threads_started_since(const std::set<unsigned long>& before);

    // Those of `threads` still alive (GIL held).
    std::vector<python_thread> still_alive(const std::vector<python_thread>& threads);

    // Waits, GIL released, up to `budget` for `threads` to end; returns those
    // still alive (call with the GIL held).
    std::vector<python_thread> wait_for_threads(const std::vector<python_thread>& threads,
                                                std::chrono::milliseconds budget);

    // Those of `threads` that used at least `share` of a CPU over `window`
    // (GIL released meanwhile): running, rather than waiting on a lock, a
    // queue or a sleep. Call with the GIL held.
    std::vector<python_thread> busy_threads(const std::vector<python_thread>& threads,
                                            std::chrono::milliseconds window, double share);

    // Raises `exception` in each thread at its next bytecode (a thread
    // blocked in a C call sees it when the call returns). GIL held.
    void raise_in_threads(const std::vector<python_thread>& threads, PyObject* exception);
}
