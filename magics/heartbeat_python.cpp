#include "heartbeat_python.hpp"

namespace gillab
{
    child_heartbeat heartbeat_in_child(const measurement_target& target, const child_heartbeat_request& request)
    {
        const nl::json answer = run_in_child(target,
                                             {{"task", "heartbeat"}, {"cell", request.cell}, {"every_s", request.every_s},
                                              {"warmup_s", request.warmup_s}, {"slow_s", request.slow_s},
                                              {"probe_every_s", request.probe_every_s}, {"capacity", request.capacity}},
                                             "heartbeat");
        child_heartbeat run;
        run.start_ns = answer.at("start_ns").get<std::int64_t>();
        run.cell_start_ns = answer.at("cell_start_ns").get<std::int64_t>();
        run.cell_end_ns = answer.at("cell_end_ns").get<std::int64_t>();
        run.ticks_ns = answer.at("ticks_ns").get<std::vector<std::int64_t>>();
        run.slow_callbacks = answer.at("slow").get<std::vector<std::string>>();
        run.probe = read_python_probe(answer.at("probe"));
        return run;
    }
}
