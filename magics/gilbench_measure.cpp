// %%gilbench's measuring: one loop, runners/task_gilbench.py, run in this
// kernel with the kernel's native thread pool and budget watchdog, or in a
// child of another interpreter (--python) with Python stand-ins. Either way
// its raw runs come back here as the same `measured` rows. The kernel's
// process pools start from a fresh process of its own interpreter: a fork
// copies its parent's memory, and the notebook's (charts, data) would
// otherwise be in every pool's start-up (bench/fork_cost).
#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

#include "core/budget.hpp"
#include "core/thread_pool.hpp"
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
                planned.push_back({{"mode", c.mode}, {"workers", c.workers}, {"workers_spec", c.workers_spec},
                                   {"jobs", c.jobs}, {"base_jobs", c.base_jobs}});
            }
            return {{"task", "gilbench"}, {"folder", cell.folder()}, {"module", cell.name()},
                    {"configs", planned}, {"repeats", o.repeats}, {"warmup", o.warmup},
                    {"budget_s", o.budget_s}, {"start_method", o.start_method},
                    {"startup_included", o.startup_included}, {"weak_scaling", o.weak_scaling}};
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
                out.push_back(std::move(m));
            }
            return out;
        }

        // The native pool as the task calls it: results, wall time from the
        // release to the last job done, budget stop, and the failing job's traceback.
        py::dict native_threads(py::object job, long jobs, int workers, double budget_s)
        {
            pool_run run = run_in_native_threads(std::move(job), jobs, workers, budget_s);
            py::list results;
            for (py::object& r : run.results) results.append(std::move(r));
            return py::dict("results"_a = results, "wall_s"_a = run.wall_s, "over_budget"_a = run.over_budget,
                            "failed_job"_a = run.failed ? py::object(py::int_(run.failed_job)) : py::object(py::none()),
                            "error"_a = run.failed ? py::object(py::str(run.error_text)) : py::object(py::none()));
        }

        // Part of the task's request measured by runners/child.py in a fresh
        // process of the kernel's own interpreter; its progress reaches `progress`.
        py::object in_fresh_interpreter(py::dict part, py::function progress)
        {
            static const measurement_target fresh{false, "a fresh process of the kernel's interpreter",
                                                  kernel_interpreter_info()};
            nl::json answer = run_in_child(fresh, py::cast<nl::json>(part), "gilbench",
                                           [&progress](const std::string& status) { progress(status); });
            return py::cast(answer);
        }

        // What the task gets from the kernel in place of its Python stand-ins.
        py::object native_tools()
        {
            return py::module_::import("types").attr("SimpleNamespace")(
                "threads"_a = py::cpp_function(&native_threads, "job"_a, "jobs"_a, "workers"_a, "budget_s"_a),
                "in_fresh_interpreter"_a = py::cpp_function(&in_fresh_interpreter, "part"_a, "progress"_a),
                "watchdog"_a = budget_watchdog_type(),
                "RunOverBudget"_a = py::handle(run_over_budget_type()));
        }
    }

    namespace gilbench
    {
        std::vector<measured> measure_in_kernel(const cell_module& cell, const std::vector<configuration>& configs,
                                                const options& o, const std::function<void(const std::string&)>& progress)
        {
            cell.module();  // the task finds it imported
            py::module_ task = py::module_::import("gillab.runners.task_gilbench");
            py::cpp_function report([&progress](const std::string& status) { progress(status); });
            py::object answer = task.attr("measure")(request(cell, configs, o), report, native_tools());
            return rows(answer.cast<nl::json>(), configs, "in the kernel");
        }

        std::vector<measured> measure_in_child(const measurement_target& target, const cell_module& cell,
                                               const std::vector<configuration>& configs, const options& o,
                                               const std::function<void(const std::string&)>& progress)
        {
            return rows(run_in_child(target, request(cell, configs, o), "gilbench", progress), configs,
                        "under " + target.requested);
        }
    }
}
