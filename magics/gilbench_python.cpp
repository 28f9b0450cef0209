// %%gilbench --python: the kernel plans the configurations and writes the
// cell as a module; a child of the other interpreter imports it and times
// each configuration with runners/task_gilbench.py; its raw runs come back
// here as the same `measured` rows the kernel fills for itself.
#include "gilbench.hpp"

namespace gillab
{
    namespace gilbench
    {
        std::vector<measured> measure_in_child(const measurement_target& target, const cell_module& cell,
                                               const std::vector<configuration>& configs, const options& o,
                                               const std::function<void(const std::string&)>& progress)
        {
            nl::json planned = nl::json::array();
            for (const configuration& c : configs)
            {
                planned.push_back({{"mode", c.mode}, {"workers", c.workers}, {"workers_spec", c.workers_spec},
                                   {"jobs", c.jobs}, {"base_jobs", c.base_jobs}});
            }
            const nl::json request = {{"task", "gilbench"}, {"folder", cell.folder()}, {"module", cell.name()},
                                      {"configs", planned}, {"repeats", o.repeats}, {"warmup", o.warmup},
                                      {"budget_s", o.budget_s}, {"start_method", o.start_method},
                                      {"startup_included", o.startup_included}, {"weak_scaling", o.weak_scaling}};
            const nl::json answer = run_in_child(target, request, "gilbench", progress);
            const nl::json& figures = answer.at("configs");
            if (figures.size() != configs.size())
                throw std::runtime_error("%gilbench under " + target.requested + ": the child answered for " +
                                         std::to_string(figures.size()) + " of " + std::to_string(configs.size()) +
                                         " configurations");
            std::vector<measured> rows;
            for (std::size_t i = 0; i < configs.size(); ++i)
            {
                const nl::json& f = figures[i];
                measured m;
                m.config = configs[i];
                m.walls = f.at("walls").get<std::vector<double>>();
                m.cpus = f.at("cpus").get<std::vector<double>>();
                const nl::json& match = f.at("results_match");  // null: nothing to compare with
                m.results_match = match.is_null() || match.get<bool>();
                m.over_budget = f.at("over_budget").get<bool>();
                m.skipped = f.at("skipped").get<bool>();
                if (m.over_budget) m.flags.push_back("stopped at --budget");
                if (m.skipped) m.flags.push_back("not run: fewer jobs went over --budget");
                rows.push_back(std::move(m));
            }
            return rows;
        }
    }
}
