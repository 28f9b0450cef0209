#include "switchinterval_python.hpp"

#include <cmath>

#include "core/python_probe.hpp"

namespace gillab
{
    std::vector<interval_run> sweep_in_child(const measurement_target& target, const child_sweep& sweep,
                                             const std::function<void(const std::string&)>& on_progress)
    {
        const nl::json request = {{"task", "switchinterval"}, {"intervals_s", sweep.intervals_s},
                                  {"capacities", sweep.capacities}, {"probe", sweep.probe}, {"load", sweep.load},
                                  {"every_s", sweep.every_s}, {"duration_s", sweep.duration_s},
                                  {"settle_s", sweep.settle_s}};
        const nl::json answer = run_in_child(target, request, "switchinterval", on_progress);
        std::vector<interval_run> runs;
        for (const nl::json& measured : answer.at("runs"))
        {
            interval_run run;
            run.interval_s = measured.at("interval_s").get<double>();
            run.window_s = measured.at("window_s").get<double>();
            run.steps = measured.at("spinner_steps").get<std::uint64_t>();
            // as in the kernel: no step finished means an unknown rate, not 0
            if (sweep.load != "none" && run.steps > 0) run.rate = static_cast<double>(run.steps) / run.window_s;
            if (!measured.at("probe").is_null()) run.probe = read_python_probe(measured["probe"]).summary;
            runs.push_back(run);
        }
        return runs;
    }
}
