// SIGINT (the notebook's stop button, interrupt_mode "signal") as
// KeyboardInterrupt in the running cell, and nothing else.
//
// While idle the kernel ignores SIGINT: a handler would make zmq's poll
// fail with EINTR and abort the kernel. While a cell runs, Python's own
// handler is installed and the shell (main) thread alone has SIGINT
// unblocked, so the signal also breaks the main thread's blocking calls.
#pragma once

#include <set>
#include <vector>
#include <sys/types.h>

#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    // Call first thing in main(), before any thread exists: every thread
    // created afterwards inherits a mask with SIGINT blocked.
    void block_sigint_in_new_threads();

    // The scope of one cell. Construct and destroy with the GIL held.
    class interruptible_cell
    {
    public:
        interruptible_cell();
        ~interruptible_cell();

        interruptible_cell(const interruptible_cell&) = delete;
        interruptible_cell& operator=(const interruptible_cell&) = delete;

        // After a KeyboardInterrupt: stop the Python threads and child
        // processes that this cell started and that still run. Returns a
        // one-line report, empty when there was nothing to stop.
        std::string stop_what_the_cell_started();

    private:
        std::set<unsigned long> m_threads_before;
        std::vector<pid_t> m_children_before;
    };
}
