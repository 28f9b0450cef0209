// %%heartbeat under another interpreter (--python): the child runs the cell
// with runners/task_heartbeat.py, the kernel's own event-loop runner, and a
// Python probe thread where the kernel runs its native one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "workers/child_interpreter.hpp"
#include "instruments/python_probe.hpp"

namespace gillab
{
    // Times in ns since the child's probe started.
    struct child_heartbeat
    {
        std::int64_t start_ns = 0;
        std::int64_t cell_start_ns = 0;
        std::int64_t cell_end_ns = 0;
        std::vector<std::int64_t> ticks_ns;
        std::vector<std::string> slow_callbacks;
        python_probe_record probe;
    };

    struct child_heartbeat_request
    {
        std::string cell;
        double every_s;
        double warmup_s;
        double slow_s;
        double probe_every_s;
        std::size_t capacity;  // probe samples kept (an even subsample past it)
    };

    // Interruptible: the child is killed and reaped on KeyboardInterrupt. The
    // cell's prints reach the notebook; its errors come back as exceptions.
    child_heartbeat heartbeat_in_child(const measurement_target& target, const child_heartbeat_request& request);
}
