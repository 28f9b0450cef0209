// %switchinterval --sweep under another interpreter (--python): a child runs
// runners/task_switchinterval.py, a Python spinner (the kernel's own loads)
// and a Python probe thread, under its own switch interval; its answer comes
// back as the interval runs the kernel measures natively, so one result
// builder renders both.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/child_interpreter.hpp"
#include "core/gil_probe.hpp"

namespace gillab
{
    // One interval of a sweep, measured in the kernel or in a child.
    struct interval_run
    {
        double interval_s;
        bool reference_only = false;  // measured for the rate baseline only
        gil_probe_summary probe;
        std::uint64_t steps = 0;
        double window_s = 0;
        double rate = std::nan("");  // spinner steps per second
    };

    struct child_sweep
    {
        std::vector<double> intervals_s;
        std::vector<std::size_t> capacities;  // samples kept per interval
        std::string probe;                    // sleep | yield | none
        std::string load;                     // a spinner load or none
        double every_s;
        double duration_s;
        double settle_s;
    };

    // Interruptible: the child is killed and reaped on KeyboardInterrupt.
    // `on_progress` hears which interval the child is on.
    std::vector<interval_run> sweep_in_child(const measurement_target& target, const child_sweep& sweep,
                                             const std::function<void(const std::string&)>& on_progress);
}
