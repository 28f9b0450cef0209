// %%gilbench: one cell's work, run sequentially, in threads, in processes
// and under asyncio at several worker counts; a table of medians, spreads,
// speed-ups and CPU time. Reads as: parse -> measure -> result.
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include <pybind11/embed.h>
#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

#include "core/budget.hpp"
#include "core/cell_module.hpp"
#include "core/clock.hpp"
#include "core/interruptible.hpp"
#include "core/progress.hpp"
#include "core/registry.hpp"
#include "core/stats.hpp"
#include "core/thread_pool.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        const std::vector<std::string> all_modes = {"sequential", "threads", "processes", "asyncio"};
        constexpr long long max_workers = 10000;
        constexpr long long max_process_workers = 64;
        // A job that blocks the event loop gets past asyncio's own timeout.
        constexpr double blocked_loop_grace_s = 0.25;

        struct options
        {
            std::vector<std::string> modes;
            std::vector<long long> workers;
            long long jobs;
            long long repeats;
            long long warmup;
            bool weak_scaling;
            std::string start_method;
            bool startup_included;
            double budget_s;
        };

        struct configuration
        {
            std::string mode;
            long long workers;
            long long jobs;
        };

        struct one_run
        {
            double wall_s = 0;
            double cpu_s = 0;
            std::vector<py::object> results;
            bool over_budget = false;  // stopped when --budget ran out; results incomplete
        };

        // ---- parse ----------------------------------------------------------

        arg_parser parser()
        {
            return arg_parser(
                "gilbench",
                "Time one cell's work run sequentially, in threads, in processes and under asyncio.\n\n"
                "The cell says what one job is, in either form:\n"
                "  * define `def job(i)` (and/or `async def ajob(i)` for asyncio); everything else in the cell\n"
                "    is setup that runs once. Jobs are job(0) .. job(N-1); their return values are compared\n"
                "    across modes.\n"
                "  * or write no function at all: the cell body itself is one job (with `i` defined).\n"
                "The cell runs as its own module (so process workers can import it under spawn and\n"
                "forkserver): import what it needs inside the cell; names from other cells are not visible.\n\n"
                "Each configuration runs --warmup times unmeasured, then --repeats times. Wall time runs from\n"
                "the moment all workers are released (pool start-up included unless --startup apart) to the\n"
                "last result; CPU time is user+system of the kernel and its reaped children, so threads on\n"
                "pure-Python work show about one core and processes show many. Speed-up is throughput\n"
                "against sequential. The result object (-o NAME) has rows, speedup(mode, workers), best(),\n"
                "wall(mode, workers), to_dict() and to_dataframe().",
                {{"modes", 'm', "MODE,...", "sequential, threads, processes, asyncio (default: all that the cell supports)"},
                 {"workers", 'w', "N,...", "worker counts (default 1,2,4,8; processes at most 64)"},
                 {"jobs", 'n', "N", "jobs per run (default 8); with --scaling weak, jobs per worker"},
                 {"repeats", 'r', "N", "measured runs per configuration (default 3)"},
                 {"warmup", 0, "N", "unmeasured runs first (default 1)"},
                 {"scaling", 0, "strong|weak", "strong: the same total work at every worker count (default); weak: the same work per worker"},
                 {"start-method", 0, "fork|spawn|forkserver", "how process workers start (default: the platform's)"},
                 {"startup", 0, "included|apart", "pool start-up inside the timed region (default) or before it"},
                 {"budget", 0, "DURATION", "longest one run may take (default 120s): a run still going is stopped "
                                           "(threads and the shell get RunOverBudget at their next bytecode, worker processes "
                                           "are killed, asyncio tasks cancelled) and its row says 'stopped at --budget'; "
                                           "the other configurations still run"},
                 output_option()});
        }

        options read_options(const parsed_args& args, bool has_job, bool has_ajob)
        {
            options o;
            std::vector<std::string> supported;
            for (const std::string& mode : all_modes)
            {
                if (mode == "asyncio" ? has_ajob : has_job) supported.push_back(mode);
            }
            o.modes = args.choices("modes", supported, all_modes, true);
            for (const std::string& mode : o.modes)
            {
                if (mode == "asyncio" && !has_ajob)
                    throw usage_error("%gilbench: mode asyncio needs `async def ajob(i)` in the cell");
                if (mode != "asyncio" && !has_job)
                    throw usage_error("%gilbench: mode " + mode + " needs `def job(i)` in the cell (it defines only ajob)");
            }
            o.workers = args.integers("workers", {1, 2, 4, 8}, 1, max_workers);
            o.jobs = args.integer("jobs", 8, 1, 1000000);
            o.repeats = args.integer("repeats", 3, 1, 1000);
            o.warmup = args.integer("warmup", 1, 0, 100);
            o.weak_scaling = args.choices("scaling", {"strong"}, {"strong", "weak"}, false)[0] == "weak";
            py::list methods = py::module_::import("multiprocessing").attr("get_all_start_methods")();
            o.start_method = args.choices("start-method", {""}, methods.cast<std::vector<std::string>>(), false)[0];
            o.startup_included = args.choices("startup", {"included"}, {"included", "apart"}, false)[0] == "included";
            o.budget_s = args.duration("budget", 120.0, 0.001, 86400.0);
            const bool with_processes = std::count(o.modes.begin(), o.modes.end(), "processes") > 0;
            for (long long w : o.workers)
            {
                if (with_processes && w > max_process_workers)
                    throw usage_error("%gilbench: " + std::to_string(w) + " process workers is beyond the cap of " +
                                      std::to_string(max_process_workers) + "; use fewer, or leave processes out of --modes");
            }
            return o;
        }

        // ---- measure --------------------------------------------------------

        std::chrono::steady_clock::duration as_duration(double seconds)
        {
            return std::chrono::duration_cast<monotonic::duration>(std::chrono::duration<double>(seconds));
        }

        unsigned long current_python_thread()
        {
            return PyThread_get_thread_ident();
        }

        // The cell's jobs in the shell thread. Over budget: checked between
        // jobs, and a watchdog raises RunOverBudget inside a long one.
        one_run run_sequential(py::object job, long long jobs, double budget_s)
        {
            one_run run;
            const double cpu0 = process_tree_cpu_seconds();
            const auto start = monotonic::now();
            const auto deadline = start + as_duration(budget_s);
            budget_watchdog watchdog(deadline, {current_python_thread()});
            try
            {
                for (long long i = 0; i < jobs && !run.over_budget; ++i)
                {
                    run.results.push_back(job(i));
                    run.over_budget = monotonic::now() >= deadline && i + 1 < jobs;
                }
            }
            catch (py::error_already_set& error)
            {
                watchdog.disarm();
                if (!is_over_budget(error)) throw;
                run.over_budget = true;
            }
            run.wall_s = seconds_between(start, monotonic::now());
            watchdog.disarm();
            run.cpu_s = process_tree_cpu_seconds() - cpu0;
            return run;
        }

        one_run run_threads(py::object job, long long jobs, long long workers, double budget_s)
        {
            const double cpu0 = process_tree_cpu_seconds();
            pool_run pool = run_in_native_threads(job, jobs, static_cast<int>(workers), budget_s);
            const double cpu = process_tree_cpu_seconds() - cpu0;
            if (pool.failed)
            {
                throw std::runtime_error("job(" + std::to_string(pool.failed_job) + ") raised in mode threads" +
                                         " with " + std::to_string(workers) + " workers:\n" + pool.error_text);
            }
            one_run run{pool.wall_s, cpu, std::move(pool.results)};
            run.over_budget = pool.over_budget;
            return run;
        }

        const char* main_trap_help =
            "A process worker could not find a function in __main__. Functions defined in notebook cells live in "
            "the kernel's __main__, which spawn and forkserver workers do not have. Define everything the job uses "
            "inside the %%gilbench cell (it becomes an importable module), or move it to a .py file and import it.";

        // Kills the workers (a job may never return) and reaps them.
        void stop_process_pool(py::object pool)
        {
            py::dict scope("pool"_a = pool);
            py::exec("for p in list((getattr(pool, '_processes', None) or {}).values()):\n    p.kill()\n"
                     "pool.shutdown(wait=True, cancel_futures=True)", scope);
        }

        one_run run_processes(py::object job, long long jobs, long long workers, const options& o)
        {
            py::module_ futures = py::module_::import("concurrent.futures");
            py::module_ mp = py::module_::import("multiprocessing");
            py::object context = o.start_method.empty() ? mp.attr("get_context")() : mp.attr("get_context")(o.start_method);
            const double cpu0 = process_tree_cpu_seconds();
            auto start = monotonic::now();
            py::object pool = futures.attr("ProcessPoolExecutor")("max_workers"_a = workers, "mp_context"_a = context);
            one_run run;
            try
            {
                if (!o.startup_included)
                {
                    // Every worker started and idle before the clock starts.
                    py::list warm;
                    py::object noop = py::module_::import("os").attr("getpid");
                    for (long long w = 0; w < workers; ++w) warm.append(pool.attr("submit")(noop));
                    futures.attr("wait")(warm);
                    start = monotonic::now();
                }
                py::list submitted;
                for (long long i = 0; i < jobs; ++i) submitted.append(pool.attr("submit")(job, i));
                // futures.wait sleeps on a condition (GIL released) and wakes at the
                // last completion; the short slices keep the budget and the stop
                // button responsive.
                const auto deadline = start + as_duration(o.budget_s);
                py::object wait = futures.attr("wait");
                while (true)
                {
                    const double left = seconds_between(monotonic::now(), deadline);
                    py::tuple done_pending = wait(submitted, "timeout"_a = std::max(0.0, std::min(0.05, left)));
                    if (py::len(done_pending[1]) == 0) break;
                    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
                    if (left <= 0)
                    {
                        run.over_budget = true;
                        break;
                    }
                }
                run.wall_s = seconds_between(start, monotonic::now());
                if (run.over_budget)
                {
                    stop_process_pool(pool);
                    run.cpu_s = process_tree_cpu_seconds() - cpu0;
                    return run;
                }
                for (py::handle f : submitted) run.results.push_back(f.attr("result")());
            }
            catch (py::error_already_set& error)
            {
                // Stop the workers at once: an interrupt or a failure must not leave them running.
                stop_process_pool(pool);
                if (error.matches(PyExc_KeyboardInterrupt)) throw;
                const std::string text = py::str(error.value()).cast<std::string>();
                const std::string kind = py::str(py::type::handle_of(error.value()).attr("__name__")).cast<std::string>();
                std::string message = "job raised " + kind + " in mode processes with " + std::to_string(workers) +
                                      " workers (start method " + context.attr("get_start_method")().cast<std::string>() + "): " + text;
                if (text.find("Can't get attribute") != std::string::npos) message += "\n" + std::string(main_trap_help);
                if (kind == "BrokenProcessPool") message += "\nA worker process died (os._exit, a signal or a crash) before returning its result.";
                throw std::runtime_error(message);
            }
            pool.attr("shutdown")("wait"_a = true);
            run.cpu_s = process_tree_cpu_seconds() - cpu0;  // workers are reaped by now
            return run;
        }

        // All jobs under one event loop, at most `workers` at a time. Over budget:
        // the tasks are cancelled; a job that blocks the loop gets RunOverBudget
        // from a watchdog a little later instead.
        one_run run_asyncio(py::object ajob, long long jobs, long long workers, double budget_s)
        {
            py::dict scope("ajob"_a = ajob, "jobs"_a = jobs, "workers"_a = workers, "budget"_a = budget_s,
                           "RunOverBudget"_a = py::handle(run_over_budget_type()));
            py::exec(R"PY(
import asyncio
async def _all_jobs():
    limit = asyncio.Semaphore(workers)
    async def one(i):
        async with limit:
            return await ajob(i)
    everything = asyncio.ensure_future(asyncio.gather(*(one(i) for i in range(jobs))))
    done, _ = await asyncio.wait({everything}, timeout=budget)
    if not done:
        everything.cancel()
        try:
            await everything
        except asyncio.CancelledError:
            pass
        raise RunOverBudget()
    return everything.result()
)PY", scope);
            one_run run;
            py::object asyncio_run = py::module_::import("asyncio").attr("run");
            const double cpu0 = process_tree_cpu_seconds();
            const auto start = monotonic::now();
            budget_watchdog watchdog(start + as_duration(budget_s + blocked_loop_grace_s), {current_python_thread()});
            try
            {
                py::list results = asyncio_run(scope["_all_jobs"]());
                for (py::handle r : results) run.results.push_back(py::reinterpret_borrow<py::object>(r));
            }
            catch (py::error_already_set& error)
            {
                watchdog.disarm();
                if (!is_over_budget(error)) throw;
                run.over_budget = true;
            }
            run.wall_s = seconds_between(start, monotonic::now());
            watchdog.disarm();
            run.cpu_s = process_tree_cpu_seconds() - cpu0;
            return run;
        }

        one_run run_once(const cell_module& cell, const configuration& config, const options& o)
        {
            py::object module = cell.module();
            if (config.mode == "sequential") return run_sequential(module.attr("job"), config.jobs, o.budget_s);
            if (config.mode == "threads") return run_threads(module.attr("job"), config.jobs, config.workers, o.budget_s);
            if (config.mode == "processes") return run_processes(module.attr("job"), config.jobs, config.workers, o);
            return run_asyncio(module.attr("ajob"), config.jobs, config.workers, o.budget_s);
        }

        std::vector<configuration> plan(const options& o)
        {
            std::vector<configuration> configs;
            for (const std::string& mode : o.modes)
            {
                if (mode == "sequential")
                {
                    configs.push_back({mode, 1, o.jobs});
                    continue;
                }
                for (long long w : o.workers)
                {
                    configs.push_back({mode, w, o.weak_scaling ? o.jobs * w : o.jobs});
                }
            }
            return configs;
        }

        bool same_results(const std::vector<py::object>& a, const std::vector<py::object>& b)
        {
            if (a.size() != b.size()) return false;
            for (std::size_t i = 0; i < a.size(); ++i)
            {
                if (!a[i].equal(b[i])) return false;
            }
            return true;
        }

        // ---- result ---------------------------------------------------------

        struct measured
        {
            configuration config;
            summary wall;
            summary cpu;
            std::vector<double> walls;
            bool results_match = true;
            bool over_budget = false;  // a run was stopped; no figures when no run finished
            std::vector<std::string> flags;
        };

        Result build_result(const std::vector<measured>& rows, const options& o, double reference_throughput,
                            const std::vector<std::string>& mismatches, bool over_budget)
        {
            Result result;
            result.magic = "gilbench";
            const long long cpus = py::module_::import("os").attr("cpu_count")().cast<long long>();
            result.table.title = "gilbench: " + std::to_string(o.jobs) + (o.weak_scaling ? " jobs per worker" : " jobs") +
                                 ", median of " + std::to_string(o.repeats) + " run(s), " + std::to_string(cpus) + " CPUs";
            result.table.columns = {{"mode", "mode", ""}, {"workers", "workers", ""}, {"jobs", "jobs", ""},
                                    {"wall_median", "wall median", "s"}, {"wall_iqr", "spread (IQR)", "s"},
                                    {"speedup", "speed-up", "x"}, {"cpu_median", "CPU", "s"},
                                    {"cores_used", "cores used", ""}, {"flags", "flags", ""}};
            nl::json runs = nl::json::array();
            Chart chart;
            chart.title = "Wall time by workers (lower is faster)";
            chart.x_title = "workers";
            chart.y_title = "median wall time (s)";
            std::map<std::string, std::size_t> series_index;
            for (long long w : o.workers) chart.categories.push_back(std::to_string(w));
            for (const measured& m : rows)
            {
                if (m.walls.empty())
                {
                    result.table.rows.push_back({m.config.mode, static_cast<std::int64_t>(m.config.workers),
                                                 static_cast<std::int64_t>(m.config.jobs), {}, {}, {}, {}, {},
                                                 std::string("stopped at --budget")});
                    runs.push_back({{"mode", m.config.mode}, {"workers", m.config.workers}, {"jobs", m.config.jobs},
                                    {"wall_s", nullptr}, {"cpu_s", nullptr}, {"wall_runs_s", nl::json::array()},
                                    {"speedup", nullptr}, {"cores_used", nullptr}, {"over_budget", true},
                                    {"results_match", nullptr}, {"flags", m.flags}});
                    continue;
                }
                const double throughput = static_cast<double>(m.config.jobs) / m.wall.median;
                const double speedup = reference_throughput > 0 ? throughput / reference_throughput : std::nan("");
                const double cores = m.wall.median > 0 ? m.cpu.median / m.wall.median : std::nan("");
                std::string flags;
                for (const std::string& f : m.flags) flags += (flags.empty() ? "" : ",") + f;
                result.table.rows.push_back({m.config.mode, static_cast<std::int64_t>(m.config.workers),
                                             static_cast<std::int64_t>(m.config.jobs), m.wall.median, m.wall.iqr(),
                                             speedup, m.cpu.median, cores, flags});
                runs.push_back({{"mode", m.config.mode}, {"workers", m.config.workers}, {"jobs", m.config.jobs},
                                {"wall_s", to_json(m.wall)}, {"cpu_s", to_json(m.cpu)}, {"wall_runs_s", m.walls},
                                {"speedup", std::isfinite(speedup) ? nl::json(speedup) : nl::json(nullptr)},
                                {"cores_used", std::isfinite(cores) ? nl::json(cores) : nl::json(nullptr)},
                                {"over_budget", m.over_budget},
                                {"results_match", m.results_match}, {"flags", m.flags}});
                if (m.config.mode == "sequential")
                {
                    chart.rules.push_back({"sequential", m.wall.median});
                    continue;
                }
                auto found = series_index.find(m.config.mode);
                if (found == series_index.end())
                {
                    found = series_index.emplace(m.config.mode, chart.series.size()).first;
                    chart.series.push_back({m.config.mode, {}, {}});
                }
                const auto position = std::find(o.workers.begin(), o.workers.end(), m.config.workers) - o.workers.begin();
                chart.series[found->second].x.push_back(static_cast<double>(position));
                chart.series[found->second].y.push_back(m.wall.median);
            }
            result.table.notes.push_back("speed-up: jobs per second against sequential; with " + std::to_string(cpus) +
                                         " CPUs, CPU-bound work cannot exceed " + std::to_string(cpus) + "x.");
            result.table.notes.push_back("cores used: CPU time / wall time; about 1 means the GIL (or one core) was the limit.");
            for (const std::string& m : mismatches) result.table.notes.push_back("RESULTS DIFFER: " + m);
            if (over_budget)
            {
                std::ostringstream note;
                note << "stopped at --budget: a run still going after " << o.budget_s
                     << " s was stopped (its jobs got RunOverBudget, worker processes were killed).";
                result.table.notes.push_back(note.str());
            }
            if (!chart.series.empty() || !chart.rules.empty()) result.chart = chart;
            result.data = {{"runs", runs},
                           {"results_match", mismatches.empty()},
                           {"mismatches", mismatches},
                           {"over_budget", over_budget},
                           {"budget_s", o.budget_s},
                           {"cpu_count", cpus},
                           {"options", {{"modes", o.modes}, {"workers", o.workers}, {"jobs", o.jobs},
                                        {"repeats", o.repeats}, {"warmup", o.warmup},
                                        {"scaling", o.weak_scaling ? "weak" : "strong"},
                                        {"start_method", o.start_method.empty()
                                             ? py::module_::import("multiprocessing").attr("get_start_method")().cast<std::string>()
                                             : o.start_method},
                                        {"startup", o.startup_included ? "included" : "apart"}}}};
            return result;
        }

        Result measure(const magic_call& call)
        {
            if (!call.cell || call.cell->find_first_not_of(" \t\r\n") == std::string::npos)
            {
                throw usage_error("%%gilbench needs a cell: define job(i) / async def ajob(i), or write the job's body");
            }
            cell_module cell("gilbench", *call.cell, {"job", "ajob"});
            const options o = read_options(call.args, cell.defines("job"), cell.defines("ajob"));
            const std::vector<configuration> configs = plan(o);
            progress_line progress("gilbench");

            std::vector<measured> rows;
            std::vector<py::object> reference_results;
            bool have_reference = false;
            double reference_throughput = 0;
            std::vector<std::string> mismatches;
            bool over_budget = false;
            for (std::size_t c = 0; c < configs.size(); ++c)
            {
                const configuration& config = configs[c];
                measured m{config, {}, {}, {}, true, false, {}};
                std::vector<double> cpus;
                for (long long r = 0; r < o.warmup + o.repeats; ++r)
                {
                    std::ostringstream status;
                    status << config.mode << " x " << config.workers << " workers, "
                           << (r < o.warmup ? "warm-up " + std::to_string(r + 1)
                                            : "run " + std::to_string(r - o.warmup + 1) + "/" + std::to_string(o.repeats))
                           << " (configuration " << c + 1 << " of " << configs.size() << ")";
                    progress.update(status.str());
                    one_run run = run_once(cell, config, o);
                    if (run.over_budget)
                    {
                        // The other configurations still run: a slow one says nothing about them.
                        over_budget = m.over_budget = true;
                        m.flags.push_back("stopped at --budget");
                        break;
                    }
                    if (r == o.warmup)
                    {
                        if (!have_reference && config.mode == "sequential" && !o.weak_scaling)
                        {
                            reference_results = run.results;
                            have_reference = true;
                        }
                        else if (have_reference && run.results.size() == reference_results.size() &&
                                 !same_results(run.results, reference_results))
                        {
                            m.results_match = false;
                            mismatches.push_back(config.mode + " with " + std::to_string(config.workers) +
                                                 " workers returned different results from sequential");
                        }
                    }
                    if (r >= o.warmup)
                    {
                        m.walls.push_back(run.wall_s);
                        cpus.push_back(run.cpu_s);
                    }
                }
                if (m.walls.empty())
                {
                    rows.push_back(m);
                    continue;
                }
                m.wall = summarize(m.walls);
                m.cpu = summarize(cpus);
                if (m.wall.median < 1e-3) m.flags.push_back("run under 1 ms");
                if (m.walls.size() >= 3 && m.wall.iqr() > 0.25 * m.wall.median) m.flags.push_back("too noisy");
                if (m.walls.size() >= 3)
                {
                    std::vector<double> rest(m.walls.begin() + 1, m.walls.end());
                    if (m.walls.front() > 1.5 * summarize(rest).median) m.flags.push_back("first run slow");
                }
                if (config.mode == "sequential" && reference_throughput == 0)
                {
                    reference_throughput = static_cast<double>(config.jobs) / m.wall.median;
                }
                rows.push_back(m);
            }
            progress.update("done: " + std::to_string(rows.size()) + " configurations measured");
            return build_result(rows, o, reference_throughput, mismatches, over_budget);
        }
    }

    // The result object of %%gilbench: a Result with lookups by mode and workers.
    struct gilbench_result : Result
    {
        explicit gilbench_result(Result r) : Result(std::move(r)) {}

        const nl::json& run(const std::string& mode, long long workers) const
        {
            for (const nl::json& r : data["runs"])
            {
                if (r["mode"] == mode && (mode == "sequential" || r["workers"] == workers)) return r;
            }
            throw py::key_error("no run for mode '" + mode + "' with " + std::to_string(workers) + " workers");
        }
    };

    namespace
    {
        py::object median_or_none(const nl::json& stats)
        {
            return stats.is_null() ? py::none() : py::cast(stats["median"].get<double>());
        }
    }

    void bind_gilbench_result(py::module_& m)
    {
        m.attr("RunOverBudget") = py::handle(run_over_budget_type());
        py::class_<gilbench_result, Result>(m, "GilbenchResult")
            .def("speedup", [](const gilbench_result& r, const std::string& mode, long long workers)
                 { return py::cast(r.run(mode, workers)["speedup"]); }, "mode"_a, "workers"_a = 1,
                 "jobs per second against sequential for one mode and worker count")
            .def("wall", [](const gilbench_result& r, const std::string& mode, long long workers)
                 { return median_or_none(r.run(mode, workers)["wall_s"]); }, "mode"_a, "workers"_a = 1,
                 "median wall time in seconds (None when the run was stopped at --budget)")
            .def("cpu", [](const gilbench_result& r, const std::string& mode, long long workers)
                 { return median_or_none(r.run(mode, workers)["cpu_s"]); }, "mode"_a, "workers"_a = 1,
                 "median CPU time (user+system, children included) in seconds (None when stopped at --budget)")
            .def("best", [](const gilbench_result& r)
                 {
                     const nl::json* best = nullptr;
                     for (const nl::json& run : r.data["runs"])
                         if (run["wall_s"].is_null()) continue;
                         else if (!best || run["wall_s"]["median"].get<double>() < (*best)["wall_s"]["median"].get<double>()) best = &run;
                     if (!best) throw py::value_error("no runs were measured");
                     return py::make_tuple((*best)["mode"].get<std::string>(), (*best)["workers"].get<long long>());
                 }, "(mode, workers) of the fastest configuration");
    }

    magic_definition gilbench_magic()
    {
        return {"gilbench", magic_kind::cell, parser(), &measure,
                [](Result r) { return py::cast(gilbench_result(std::move(r))); }, &bind_gilbench_result};
    }
}
