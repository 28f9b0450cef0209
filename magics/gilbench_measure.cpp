// %%gilbench's measuring: one loop, runners/task_gilbench.py, run in this
// kernel with the kernel's native tools (framework/runner: thread pool, budget
// watchdog, fresh interpreters for process pools), or in a child of another
// interpreter (--python) with Python stand-ins. Either way
// its raw runs come back here as the same `measured` rows. The kernel's
// process pools start from a fresh process of its own interpreter: a fork
// copies its parent's memory, and the notebook's (charts, data) would
// otherwise be in every pool's start-up (bench/fork_cost).
#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

#include "framework/runner.hpp"
#include "gilbench.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        using gilbench::configuration;
        using gilbench::measured;
        using gilbench::options;

        nl::json request(const cell_module& cell, const std::vector<configuration>& configs, const options& o)
        {
            nl::json planned = nl::json::array();
            for (const configuration& c : configs)
            {
                planned.push_back({{"mode", c.mode}, {"workers", c.workers}, {"workers_spec", c.workers_spec}, {"jobs", c.jobs}, {"base_jobs", c.base_jobs}});
            }
            return {{"task", "gilbench"}, {"folder", cell.folder()}, {"module", cell.name()}, {"configs", planned}, {"repeats", o.repeats}, {"warmup", o.warmup}, {"budget_s", o.budget_s}, {"start_method", o.start_method}, {"startup_included", o.startup_included}, {"weak_scaling", o.weak_scaling}, {"memory", o.memory}};
        }

        gilbench::peak_memory memory_of(const nl::json& figures, const std::string& mode)
        {
            gilbench::peak_memory m;
            m.problem = figures.value("problem", "");
            if (!m.problem.empty()) return m;
            m.peak_rss_bytes = figures.at("peak_rss_bytes").get<double>();
            if (mode == "processes") m.largest_child_rss_bytes = figures.at("largest_child_rss_bytes").get<double>();
            return m;
        }

        std::vector<measured> rows(const nl::json& answer, const std::vector<configuration>& configs, const std::string& where)
        {
            const nl::json& figures = answer.at("configs");
            if (figures.size() != configs.size())
                throw std::runtime_error("%gilbench " + where + ": the measurement answered for " +
                                         std::to_string(figures.size()) + " of " + std::to_string(configs.size()) +
                                         " configurations");
            std::vector<measured> out;
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
                if (f.contains("memory")) m.memory = memory_of(f.at("memory"), m.config.mode);
                if (!m.memory.problem.empty()) m.flags.push_back(m.memory.problem);
                out.push_back(std::move(m));
            }
            return out;
        }
    }

    namespace gilbench
    {
        void measure_under(interpreter_rows& block, const cell_module& cell, const std::vector<configuration>& configs,
                           const options& o, const std::function<void(const std::string&)>& progress)
        {
            const measurement_target& target = block.target;
            if (target.is_kernel) cell.module();  // the task finds it imported
            const std::string where = target.is_kernel ? "in the kernel" : "under " + target.requested;
            const nl::json answer = run_task(target, request(cell, configs, o), "gilbench", progress);
            block.rows = rows(answer, configs, where);
            block.start_method = answer.at("start_method").get<std::string>();
        }
    }
}
