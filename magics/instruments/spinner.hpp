// The loads of the latency magics' CPU-bound competitor, for people: what
// one step is and whether it releases the GIL. A step is either many short
// bytecodes (the switch interval can cut it) or one long C call (nothing can,
// unless the call releases the GIL). The spinner thread itself is Python
// (runners/spinner_loads.py), started by the sweep's runner in the kernel and
// in child interpreters alike.
#pragma once

#include <string>
#include <vector>

namespace gillab
{
    struct spinner_load
    {
        std::string name;
        std::string step;  // what one step is, for people
        bool releases_gil;
    };

    const std::vector<spinner_load>& spinner_loads();
    const spinner_load& find_spinner_load(const std::string& name);
    std::vector<std::string> spinner_load_names();
}
