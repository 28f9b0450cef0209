// The CPU-bound competitor of the latency magics: a Python thread that runs
// one step of a load after another until stopped, counting steps. A step is
// either many short bytecodes (the switch interval can cut it) or one long C
// call (nothing can, unless the call releases the GIL). The loads themselves
// are Python (runners/spinner_loads.py), shared with child interpreters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    struct spinner_load
    {
        std::string name;
        std::string step;          // what one step is, for people
        bool releases_gil;
    };

    const std::vector<spinner_load>& spinner_loads();
    const spinner_load& find_spinner_load(const std::string& name);
    std::vector<std::string> spinner_load_names();

    class spinner
    {
    public:
        // Builds the load's data and starts the thread. GIL held.
        explicit spinner(const std::string& load);
        // Stops and joins; keeps any pending Python error (interrupt) intact.
        ~spinner();
        spinner(const spinner&) = delete;
        spinner& operator=(const spinner&) = delete;

        std::uint64_t steps() const;  // GIL held
        void stop();                  // GIL held; waits for the current step to end

    private:
        py::list m_state;  // [running, steps]
        py::object m_thread;
    };
}
