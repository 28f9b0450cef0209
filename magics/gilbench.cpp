// %%gilbench: one cell's work, run sequentially, in threads, in processes
// and under asyncio at several worker counts; a table of medians, spreads,
// speed-ups and CPU time. Reads as: parse -> measure -> result.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

#include <pybind11/embed.h>
#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

#include "core/budget.hpp"
#include "core/cell_module.hpp"
#include "core/clock.hpp"
#include "core/interruptible.hpp"
#include "core/process_tree.hpp"
#include "core/progress.hpp"
#include "core/registry.hpp"
#include "core/stats.hpp"
#include "core/thread_pool.hpp"
#include "gilbench.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        const std::vector<std::string> all_modes = {"sequential", "threads", "processes", "asyncio"};

        std::string join_names(const std::vector<std::string>& names)
        {
            std::string out;
            for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
            return out;
        }
        constexpr long long max_workers = 10000;
        constexpr long long max_process_workers = 64;
        // A job that blocks the event loop gets past asyncio's own timeout.
        constexpr double blocked_loop_grace_s = 0.25;

        using gilbench::configuration;
        using gilbench::measured;
        using gilbench::options;
        using gilbench::peak_memory;

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
                "against sequential with the same --jobs. The result object (-o NAME) has rows,\n"
                "wall(mode, workers, jobs=None, python=None), cpu(...), speedup(...), peak_rss_mib(...),\n"
                "best(python=None), interpreters, to_dict() and to_dataframe(); workers is a count or\n"
                "'default' / 'per-job'; python picks an interpreter as --python named it (default: the first).\n\n"
                "--python kernel,3.13,3.13t runs the same jobs under each interpreter, each other than the\n"
                "kernel in a child process that imports the cell (its prints reach the notebook), and adds\n"
                "their rows, named by version, build and GIL state; speed-up is against each interpreter's\n"
                "own sequential run. In a child, threads are threading.Thread workers released together\n"
                "(the kernel uses its native pool). On the free-threaded 3.13t (GIL off) CPU-bound threads\n"
                "scale with the cores; on the default 3.13 they do not.\n\n"
                "Examples:\n"
                "  %%gilbench --modes sequential,threads,processes --workers 1,2,4 -o r\n"
                "  def job(i):\n"
                "      return sum(k * k for k in range(1_000_000))\n\n"
                "  %gilbench --preset cpu --python 3.13,3.13t --modes sequential,threads\n\n"
                "  %%gilbench --modes threads,asyncio --workers default,per-job --jobs 100,1000 --memory\n"
                "  import asyncio, time\n"
                "  def job(i): time.sleep(0.1)\n"
                "  async def ajob(i): await asyncio.sleep(0.1)\n\n" +
                    gilbench_presets_help(),
                {{"preset", 'p', "NAME", "one of the course's tables: " + join_names(gilbench_preset_names()) +
                                             " (see Presets above)"},
                 {"modes", 'm', "MODE,...", "sequential, threads, processes, asyncio (default: all that the cell supports)"},
                 {"workers", 'w', "N|default|per-job,...",
                  "worker counts (default 1,2,4,8). default = the library's own default: ThreadPoolExecutor's "
                  "min(32, CPUs+4) threads, ProcessPoolExecutor's one process per CPU, asyncio.gather's no limit; "
                  "per-job = one worker per job. At most 10000 threads or tasks, 64 processes"},
                 {"jobs", 'n', "N,...", "jobs per run (default 8), several for one block each (e.g. 100,1000,10000); "
                                        "with --scaling weak, jobs per worker"},
                 {"repeats", 'r', "N", "measured runs per configuration (default 3)"},
                 {"warmup", 0, "N", "unmeasured runs first (default 1)"},
                 {"scaling", 0, "strong|weak", "strong: the same total work at every worker count (default); weak: the same work per worker"},
                 {"start-method", 0, "fork|spawn|forkserver", "how process workers start (default: the platform's)"},
                 {"startup", 0, "included|apart", "pool start-up inside the timed region (default) or before it"},
                 {"budget", 0, "DURATION", "longest one run may take (default 120s): a run still going is stopped "
                                           "(threads and the shell get RunOverBudget at their next bytecode, worker processes "
                                           "are killed, asyncio tasks cancelled) and its row says 'stopped at --budget'; "
                                           "larger --jobs of the same mode and workers are then skipped"},
                 {"memory", 0, "", "also run each configuration once in a fresh interpreter (plain ThreadPoolExecutor, "
                                   "ProcessPoolExecutor or asyncio.gather) and show its peak RSS (VmHWM)"},
                 python_option(),
                 output_option()});
        }

        options read_options(const parsed_args& typed, const parsed_args& preset, bool has_job, bool has_ajob)
        {
            // What the student typed wins over the preset's defaults.
            auto from = [&](const std::string& name) -> const parsed_args& { return typed.has(name) ? typed : preset; };
            options o;
            std::vector<std::string> supported;
            for (const std::string& mode : all_modes)
            {
                if (mode == "asyncio" ? has_ajob : has_job) supported.push_back(mode);
            }
            o.modes = from("modes").choices("modes", supported, all_modes, true);
            for (const std::string& mode : o.modes)
            {
                if (mode == "asyncio" && !has_ajob)
                    throw usage_error("%gilbench: mode asyncio needs `async def ajob(i)` in the cell");
                if (mode != "asyncio" && !has_job)
                    throw usage_error("%gilbench: mode " + mode + " needs `def job(i)` in the cell (it defines only ajob)");
            }
            o.worker_specs = from("workers").integers_or_words("workers", {"1", "2", "4", "8"}, 1, max_workers,
                                                              {"default", "per-job"});
            o.jobs = from("jobs").integers("jobs", {8}, 1, 1000000);
            o.repeats = from("repeats").integer("repeats", 3, 1, 1000);
            o.warmup = from("warmup").integer("warmup", 1, 0, 100);
            o.weak_scaling = from("scaling").choices("scaling", {"strong"}, {"strong", "weak"}, false)[0] == "weak";
            py::list methods = py::module_::import("multiprocessing").attr("get_all_start_methods")();
            o.start_method = from("start-method").choices("start-method", {""}, methods.cast<std::vector<std::string>>(), false)[0];
            o.startup_included = from("startup").choices("startup", {"included"}, {"included", "apart"}, false)[0] == "included";
            o.budget_s = from("budget").duration("budget", 120.0, 0.001, 86400.0);
            o.memory = typed.has("memory") || preset.has("memory");
            return o;
        }

        long long cpu_count()
        {
            return py::module_::import("os").attr("cpu_count")().cast<long long>();
        }

        // A --workers item as a count for one mode and --jobs value.
        long long resolve_workers(const std::string& spec, const std::string& mode, long long base_jobs)
        {
            if (spec == "per-job" || (spec == "default" && mode == "asyncio")) return base_jobs;
            if (spec == "default") return mode == "processes" ? cpu_count() : std::min(32LL, cpu_count() + 4);
            return std::stoll(spec);
        }

        std::vector<configuration> plan(const options& o)
        {
            std::vector<configuration> configs;
            auto seen = [&](const configuration& c)
            {
                return std::any_of(configs.begin(), configs.end(), [&](const configuration& k)
                                   { return k.mode == c.mode && k.workers == c.workers && k.jobs == c.jobs; });
            };
            for (const std::string& mode : o.modes)
            {
                if (mode == "sequential")
                {
                    for (long long n : o.jobs) configs.push_back({mode, 1, "1", n, n});
                    continue;
                }
                for (const std::string& spec : o.worker_specs)
                {
                    for (long long n : o.jobs)
                    {
                        const long long w = resolve_workers(spec, mode, n);
                        const long long cap = mode == "processes" ? max_process_workers : max_workers;
                        if (w > cap)
                        {
                            throw usage_error("%gilbench: --workers " + spec + " gives " + std::to_string(w) + " " + mode +
                                              " workers, beyond the cap of " + std::to_string(cap) +
                                              (mode == "processes" ? "; use fewer, or leave processes out of --modes"
                                                                   : "; use fewer jobs or workers"));
                        }
                        // asyncio's default is no limit: the same run as per-job.
                        const std::string label = mode == "asyncio" && spec == "default" ? "per-job" : spec;
                        configuration c{mode, w, label, o.weak_scaling ? n * w : n, n};
                        if (!seen(c)) configs.push_back(c);
                    }
                }
            }
            return configs;
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

        // Times `body(run, start)` in the shell thread: wall and CPU time around it,
        // and a watchdog that raises RunOverBudget in the shell thread once
        // `watchdog_after_s` have passed; that exception marks the run stopped.
        template <typename Body>
        one_run timed_in_shell_thread(double watchdog_after_s, Body body)
        {
            one_run run;
            const double cpu0 = process_tree_cpu_seconds();
            const auto start = monotonic::now();
            budget_watchdog watchdog(start + as_duration(watchdog_after_s), {current_python_thread()});
            try
            {
                body(run, start);
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

        // The cell's jobs in the shell thread. Over budget: checked between
        // jobs, and the watchdog raises RunOverBudget inside a long one.
        one_run run_sequential(py::object job, long long jobs, double budget_s)
        {
            return timed_in_shell_thread(budget_s, [&](one_run& run, monotonic::time_point start)
            {
                const auto deadline = start + as_duration(budget_s);
                for (long long i = 0; i < jobs && !run.over_budget; ++i)
                {
                    run.results.push_back(job(i));
                    run.over_budget = monotonic::now() >= deadline && i + 1 < jobs;
                }
            });
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

        // Kills the workers with any child a job started, then reaps them.
        void stop_process_pool(py::object pool)
        {
            py::dict scope("pool"_a = pool);
            kill_process_trees(py::eval("[p.pid for p in (getattr(pool, '_processes', None) or {}).values()]", scope)
                                   .cast<std::vector<pid_t>>());
            py::exec("pool.shutdown(wait=True, cancel_futures=True)", scope);
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
            py::object asyncio_run = py::module_::import("asyncio").attr("run");
            return timed_in_shell_thread(budget_s + blocked_loop_grace_s, [&](one_run& run, monotonic::time_point)
            {
                py::list results = asyncio_run(scope["_all_jobs"]());
                for (py::handle r : results) run.results.push_back(py::reinterpret_borrow<py::object>(r));
            });
        }

        one_run run_once(const cell_module& cell, const configuration& config, const options& o)
        {
            py::object module = cell.module();
            if (config.mode == "sequential") return run_sequential(module.attr("job"), config.jobs, o.budget_s);
            if (config.mode == "threads") return run_threads(module.attr("job"), config.jobs, config.workers, o.budget_s);
            if (config.mode == "processes") return run_processes(module.attr("job"), config.jobs, config.workers, o);
            return run_asyncio(module.attr("ajob"), config.jobs, config.workers, o.budget_s);
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

        // One run of the configuration in a fresh interpreter (gillab/peak_rss.py),
        // so the kernel's own memory and earlier runs don't hide the peak.
        // `executable`: the interpreter to measure under (empty: the kernel's).
        peak_memory measure_peak_rss(const cell_module& cell, const configuration& config, const options& o,
                                     double timeout_s, const std::string& executable)
        {
            py::dict scope("executable"_a = executable, "folder"_a = cell.folder(), "name"_a = cell.name(), "mode"_a = config.mode,
                           "workers"_a = config.workers, "jobs"_a = config.jobs, "start_method"_a = o.start_method,
                           "timeout"_a = timeout_s);
            // subprocess.run kills the child on any exception, KeyboardInterrupt included.
            py::exec(R"PY(
import json, os, subprocess, sys
import gillab
script = os.path.join(os.path.dirname(gillab.__file__), "peak_rss.py")
figures, problem = None, ""
try:
    done = subprocess.run([executable or sys.executable, script, folder, name, mode, str(workers), str(jobs), start_method],
                          capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    lines = done.stdout.strip().splitlines()
    if done.returncode == 0 and lines:
        figures = json.loads(lines[-1])
    else:
        tail = (done.stderr.strip().splitlines() or ["exit code %d" % done.returncode])[-1]
        problem = "memory run failed: " + tail
except subprocess.TimeoutExpired:
    problem = "memory run over --budget"
)PY", scope);
            peak_memory m;
            m.problem = scope["problem"].cast<std::string>();
            if (!scope["figures"].is_none())
            {
                py::dict figures = scope["figures"];
                m.peak_rss_bytes = figures["peak_rss_bytes"].cast<double>();
                if (config.mode == "processes") m.largest_child_rss_bytes = figures["largest_child_rss_bytes"].cast<double>();
            }
            return m;
        }

        // ---- result ---------------------------------------------------------

        std::optional<published_row> published_for(const options& o, const configuration& c)
        {
            if (!o.preset || !o.preset_job) return std::nullopt;
            for (const published_row& p : o.preset->published)
            {
                if (p.mode == c.mode && p.jobs == c.jobs &&
                    (c.mode == "sequential" || p.workers == c.workers_spec || p.workers == std::to_string(c.workers)))
                    return p;
            }
            return std::nullopt;
        }

        // The fastest wall time physics allows, where the preset knows one:
        // waits can't overlap into less than one wait per round of workers;
        // CPU-bound work can't use more cores than it has workers or the machine has.
        std::optional<double> fastest_possible(const options& o, const configuration& c, double sequential_wall)
        {
            if (!o.preset || !o.preset_job) return std::nullopt;
            const long long parallel = c.mode == "sequential" ? 1 : c.workers;
            if (o.preset->wait_s)
            {
                return static_cast<double>((c.jobs + parallel - 1) / parallel) * *o.preset->wait_s;
            }
            if (o.preset->cpu_bound && sequential_wall > 0 && c.mode != "sequential")
            {
                const double work = sequential_wall * static_cast<double>(c.jobs) / static_cast<double>(c.base_jobs);
                return work / static_cast<double>(std::min(parallel, cpu_count()));
            }
            return std::nullopt;
        }

        nl::json optional_json(const std::optional<double>& value)
        {
            return value ? nl::json(*value) : nl::json(nullptr);
        }

        Cell optional_cell(const std::optional<double>& value)
        {
            return value ? Cell{*value} : Cell{};
        }

        // Counts as numbers, words ("default", "per-job") as strings.
        nl::json workers_json(const std::vector<std::string>& specs)
        {
            nl::json out = nl::json::array();
            for (const std::string& spec : specs)
            {
                if (spec == "default" || spec == "per-job") out.push_back(spec);
                else out.push_back(std::stoll(spec));
            }
            return out;
        }

        // One interpreter's rows: the kernel's, or a child's (--python).
        struct interpreter_rows
        {
            measurement_target target;
            std::string label;  // "3.13.5t (free-threaded, GIL off) (3.13t)", "3.11.2 (kernel)"
            std::vector<measured> rows;
            std::map<long long, double> sequential_walls;  // by --jobs value
        };

        Result build_result(const std::vector<interpreter_rows>& blocks, const options& o)
        {
            std::vector<std::string> mismatches;
            bool over_budget = false;
            for (const interpreter_rows& b : blocks)
            {
                for (const measured& m : b.rows)
                {
                    over_budget |= m.over_budget;
                    if (m.results_match || m.walls.empty()) continue;
                    mismatches.push_back((o.python_given ? b.label + ": " : std::string()) + m.config.mode + " with " +
                                         std::to_string(m.config.workers) + " workers (" + std::to_string(m.config.jobs) +
                                         " jobs) returned different results from sequential");
                }
            }
            Result result;
            result.magic = "gilbench";
            const long long cpus = cpu_count();
            std::string jobs_text;
            for (long long n : o.jobs) jobs_text += (jobs_text.empty() ? "" : ",") + std::to_string(n);
            result.table.title = "gilbench" + (o.preset ? " --preset " + o.preset->name : std::string()) + ": " +
                                 jobs_text + (o.weak_scaling ? " jobs per worker" : " jobs") + ", median of " +
                                 std::to_string(o.repeats) + " run(s), " + std::to_string(cpus) + " CPUs";
            bool any_published_wall = false, any_published_speedup = false, any_published_rss = false, any_limit = false;
            for (const interpreter_rows& b : blocks)
            {
                for (const measured& m : b.rows)
                {
                    const auto p = published_for(o, m.config);
                    any_published_wall |= p && p->wall_s.has_value();
                    any_published_speedup |= p && p->speedup.has_value();
                    any_published_rss |= p && p->peak_rss_mb.has_value();
                    const auto seq = b.sequential_walls.find(m.config.base_jobs);
                    any_limit |= fastest_possible(o, m.config, seq == b.sequential_walls.end() ? 0 : seq->second).has_value();
                }
            }
            if (o.python_given) result.table.columns.push_back({"python", "python", ""});
            result.table.columns.insert(result.table.columns.end(), {{"mode", "mode", ""}, {"workers", "workers", ""}, {"jobs", "jobs", ""},
                                    {"wall_median", "wall median", "s"}, {"wall_iqr", "spread (IQR)", "s"},
                                    {"speedup", "speed-up", "x"}, {"cpu_median", "CPU", "s"},
                                    {"cores_used", "cores used", ""}});
            if (o.memory) result.table.columns.push_back({"peak_rss", "peak RSS", "MiB"});
            if (any_limit) result.table.columns.push_back({"fastest_possible", "fastest possible", "s"});
            if (any_published_wall) result.table.columns.push_back({"published_wall", "published", "s"});
            if (any_published_speedup) result.table.columns.push_back({"published_speedup", "published", "x"});
            if (any_published_rss) result.table.columns.push_back({"published_rss", "published RSS", "MB"});
            result.table.columns.push_back({"flags", "flags", ""});

            nl::json runs = nl::json::array();
            Chart chart;
            chart.title = "Wall time by workers (lower is faster)";
            chart.x_title = "workers";
            chart.y_title = "median wall time (s)";
            std::map<std::string, std::size_t> series_index;
            for (const std::string& spec : o.worker_specs) chart.categories.push_back(spec);
            const bool several_jobs = o.jobs.size() > 1;
            nl::json interpreters = nl::json::array();
            for (std::size_t index = 0; index < blocks.size(); ++index)
            {
                const interpreter_rows& b = blocks[index];
                interpreters.push_back({{"python", b.label}, {"requested", b.target.requested}, {"kernel", b.target.is_kernel},
                                        {"interpreter", b.target.info.raw}});
                // Several interpreters: each one's series and sequential line named after it.
                const std::string by = blocks.size() > 1 ? " · " + b.target.requested : "";
                for (const measured& m : b.rows)
                {
                    const configuration& c = m.config;
                    const bool timed = !m.walls.empty();
                    const auto seq = b.sequential_walls.find(c.base_jobs);
                    const double sequential_wall = seq == b.sequential_walls.end() ? 0 : seq->second;
                    std::optional<double> speedup, cores;
                    if (timed && sequential_wall > 0)
                        speedup = (static_cast<double>(c.jobs) / m.wall.median) / (static_cast<double>(c.base_jobs) / sequential_wall);
                    if (timed && m.wall.median > 0) cores = m.cpu.median / m.wall.median;
                    const auto published = published_for(o, c);
                    const auto limit = fastest_possible(o, c, sequential_wall);
                    std::optional<double> rss_mib;
                    if (m.memory.peak_rss_bytes) rss_mib = *m.memory.peak_rss_bytes / (1024.0 * 1024.0);
                    std::string flags;
                    for (const std::string& f : m.flags) flags += (flags.empty() ? "" : ", ") + f;

                    Row row;
                    if (o.python_given) row.push_back(b.label);
                    row.insert(row.end(), {c.mode, static_cast<std::int64_t>(c.workers), static_cast<std::int64_t>(c.jobs),
                               timed ? Cell{m.wall.median} : Cell{}, timed ? Cell{m.wall.iqr()} : Cell{},
                               optional_cell(speedup), timed ? Cell{m.cpu.median} : Cell{}, optional_cell(cores)});
                    if (o.memory) row.push_back(optional_cell(rss_mib));
                    if (any_limit) row.push_back(optional_cell(limit));
                    if (any_published_wall) row.push_back(published ? optional_cell(published->wall_s) : Cell{});
                    if (any_published_speedup) row.push_back(published ? optional_cell(published->speedup) : Cell{});
                    if (any_published_rss) row.push_back(published ? optional_cell(published->peak_rss_mb) : Cell{});
                    row.push_back(flags);
                    result.table.rows.push_back(row);

                    nl::json run = {{"python", b.label}, {"requested", b.target.requested}, {"interpreter_index", index},
                                    {"mode", c.mode}, {"workers", c.workers}, {"workers_spec", c.workers_spec},
                                    {"jobs", c.jobs}, {"base_jobs", c.base_jobs},
                                    {"wall_s", timed ? to_json(m.wall) : nl::json(nullptr)},
                                    {"cpu_s", timed ? to_json(m.cpu) : nl::json(nullptr)}, {"wall_runs_s", m.walls},
                                    {"speedup", optional_json(speedup)}, {"cores_used", optional_json(cores)},
                                    {"over_budget", m.over_budget}, {"skipped", m.skipped},
                                    {"results_match", timed ? nl::json(m.results_match) : nl::json(nullptr)},
                                    {"flags", m.flags}, {"fastest_possible_s", optional_json(limit)}};
                    if (o.memory)
                    {
                        run["peak_rss_bytes"] = optional_json(m.memory.peak_rss_bytes);
                        run["largest_child_rss_bytes"] = optional_json(m.memory.largest_child_rss_bytes);
                    }
                    if (published)
                    {
                        run["published"] = {{"wall_s", optional_json(published->wall_s)},
                                            {"speedup", optional_json(published->speedup)},
                                            {"peak_rss_mb", optional_json(published->peak_rss_mb)}};
                    }
                    runs.push_back(run);

                    if (!timed) continue;
                    const std::string suffix = (several_jobs ? " (" + std::to_string(c.base_jobs) + " jobs)" : "") + by;
                    if (c.mode == "sequential")
                    {
                        chart.rules.push_back({"sequential" + suffix, m.wall.median});
                        continue;
                    }
                    auto found = series_index.find(c.mode + suffix);
                    if (found == series_index.end())
                    {
                        found = series_index.emplace(c.mode + suffix, chart.series.size()).first;
                        chart.series.push_back({c.mode + suffix, {}, {}});
                    }
                    auto position = std::find(o.worker_specs.begin(), o.worker_specs.end(), c.workers_spec);
                    if (position == o.worker_specs.end()) position = std::find(o.worker_specs.begin(), o.worker_specs.end(), "default");
                    chart.series[found->second].x.push_back(static_cast<double>(position - o.worker_specs.begin()));
                    chart.series[found->second].y.push_back(m.wall.median);
                }
            }
            result.table.notes.push_back("speed-up: jobs per second against sequential; with " + std::to_string(cpus) +
                                         " CPUs, CPU-bound work cannot exceed " + std::to_string(cpus) + "x.");
            result.table.notes.push_back("cores used: CPU time / wall time; about 1 means the GIL (or one core) was the limit.");
            if (std::count(o.worker_specs.begin(), o.worker_specs.end(), "default"))
                result.table.notes.push_back("workers default: the library's own default, here " +
                                             std::to_string(std::min(32LL, cpus + 4)) + " threads (min(32, CPUs+4)), " +
                                             std::to_string(cpus) + " processes, no limit for asyncio; per-job: one worker per job.");
            if (any_limit)
                result.table.notes.push_back("fastest possible: N waits in W workers take at least ceil(N/W) waits; CPU-bound "
                                             "work at best divides the sequential time by min(workers, CPUs).");
            if (o.memory)
                result.table.notes.push_back("peak RSS: one run in a fresh interpreter (ThreadPoolExecutor, ProcessPoolExecutor "
                                             "or asyncio.gather), the interpreter's own peak; for processes, the largest "
                                             "worker is in the JSON.");
            if (o.preset && o.preset_job && !o.preset->source.empty())
                result.table.notes.push_back("published: " + o.preset->source + ".");
            if (o.preset && !o.preset_job)
                result.table.notes.push_back("published figures belong to the preset's own job: leave the cell empty to compare.");
            if (std::any_of(blocks.begin(), blocks.end(), [](const interpreter_rows& b) { return !b.target.is_kernel; }))
                result.table.notes.push_back("other interpreters (--python): measured in a child process of each, threads "
                                             "mode with threading.Thread workers released together instead of the kernel's "
                                             "native pool; the same figures otherwise (speed-up against that interpreter's "
                                             "own sequential run).");
            for (const std::string& m : mismatches) result.table.notes.push_back("RESULTS DIFFER: " + m);
            if (over_budget)
            {
                std::ostringstream note;
                note << "stopped at --budget: a run still going after " << o.budget_s
                     << " s was stopped (its jobs got RunOverBudget, worker processes were killed).";
                result.table.notes.push_back(note.str());
            }
            if (!chart.series.empty() || !chart.rules.empty()) result.chart = chart;
            nl::json requested = nl::json::array();
            for (const interpreter_rows& b : blocks) requested.push_back(b.target.requested);
            result.data = {{"runs", runs},
                           {"interpreters", interpreters},
                           {"results_match", mismatches.empty()},
                           {"mismatches", mismatches},
                           {"over_budget", over_budget},
                           {"budget_s", o.budget_s},
                           {"cpu_count", cpus},
                           {"preset", o.preset ? nl::json(o.preset->name) : nl::json(nullptr)},
                           {"published_source", o.preset && o.preset_job ? nl::json(o.preset->source) : nl::json(nullptr)},
                           {"options", {{"modes", o.modes}, {"workers", workers_json(o.worker_specs)}, {"jobs", o.jobs},
                                        {"repeats", o.repeats}, {"warmup", o.warmup},
                                        {"scaling", o.weak_scaling ? "weak" : "strong"},
                                        {"start_method", o.start_method.empty()
                                             ? py::module_::import("multiprocessing").attr("get_start_method")().cast<std::string>()
                                             : o.start_method},
                                        {"startup", o.startup_included ? "included" : "apart"},
                                        {"memory", o.memory},
                                        {"python", requested}}}};
            return result;
        }

        std::string status_line(const configuration& config, long long r, const options& o, std::size_t c, std::size_t total)
        {
            std::ostringstream status;
            status << config.mode << " x " << config.workers << " workers, " << config.jobs << " jobs, "
                   << (r < 0 ? std::string("peak memory in a fresh process")
                             : r < o.warmup ? "warm-up " + std::to_string(r + 1)
                                            : "run " + std::to_string(r - o.warmup + 1) + "/" + std::to_string(o.repeats))
                   << " (configuration " << c + 1 << " of " << total << ")";
            return status.str();
        }

        // Every configuration's runs in this kernel, as `measured` rows (not yet summarized).
        std::vector<measured> measure_in_kernel(const cell_module& cell, const std::vector<configuration>& configs,
                                                const options& o, progress_line& progress, const std::string& prefix)
        {
            std::vector<measured> rows;
            std::map<long long, std::vector<py::object>> reference_results;  // by --jobs value
            std::vector<std::pair<std::string, std::string>> over_budget_at;  // (mode, workers spec)
            for (std::size_t c = 0; c < configs.size(); ++c)
            {
                measured m;
                m.config = configs[c];
                const configuration& config = m.config;
                // Larger --jobs after a stopped run would only be stopped again.
                if (std::count(over_budget_at.begin(), over_budget_at.end(), std::make_pair(config.mode, config.workers_spec)))
                {
                    m.skipped = true;
                    m.flags.push_back("not run: fewer jobs went over --budget");
                    rows.push_back(m);
                    continue;
                }
                for (long long r = 0; r < o.warmup + o.repeats; ++r)
                {
                    progress.update(prefix + status_line(config, r, o, c, configs.size()));
                    one_run run = run_once(cell, config, o);
                    if (run.over_budget)
                    {
                        m.over_budget = true;
                        over_budget_at.emplace_back(config.mode, config.workers_spec);
                        m.flags.push_back("stopped at --budget");
                        break;
                    }
                    if (r == o.warmup)
                    {
                        auto reference = reference_results.find(config.base_jobs);
                        if (reference == reference_results.end() && config.mode == "sequential" && !o.weak_scaling)
                            reference_results[config.base_jobs] = run.results;
                        else if (reference != reference_results.end())
                            m.results_match = same_results(run.results, reference->second);
                    }
                    if (r >= o.warmup)
                    {
                        m.walls.push_back(run.wall_s);
                        m.cpus.push_back(run.cpu_s);
                    }
                }
                rows.push_back(m);
            }
            return rows;
        }

        // Medians, spreads and the flags of one configuration's measured runs.
        void summarize_runs(measured& m)
        {
            if (m.walls.empty()) return;
            m.wall = summarize(m.walls);
            m.cpu = summarize(m.cpus);
            if (m.wall.median < 1e-3) m.flags.push_back("run under 1 ms");
            if (m.walls.size() >= 3 && m.wall.iqr() > 0.25 * m.wall.median) m.flags.push_back("too noisy");
            if (m.walls.size() >= 3)
            {
                std::vector<double> rest(m.walls.begin() + 1, m.walls.end());
                if (m.walls.front() > 1.5 * summarize(rest).median) m.flags.push_back("first run slow");
            }
        }

        Result measure(const magic_call& call)
        {
            const parsed_args& typed = call.args;
            const gilbench_preset* preset = nullptr;
            if (typed.has("preset"))
                preset = find_gilbench_preset(typed.choices("preset", {}, gilbench_preset_names(), false)[0]);
            const bool empty_cell = !call.cell || call.cell->find_first_not_of(" \t\r\n") == std::string::npos;
            if (empty_cell && !preset)
            {
                throw usage_error("%%gilbench needs a cell (define job(i) / async def ajob(i), or write the job's body) "
                                  "or --preset NAME (" + join_names(gilbench_preset_names()) + ")");
            }
            std::vector<measurement_target> targets = resolve_interpreters(typed.text("python", ""), "gilbench");
            cell_module cell("gilbench", empty_cell ? preset->job_source : *call.cell, {"job", "ajob"});
            // Imported here only if the kernel measures: setup runs where the jobs run.
            if (std::any_of(targets.begin(), targets.end(), [](const measurement_target& t) { return t.is_kernel; }))
                cell.module();
            options o = read_options(typed, parser().parse(preset ? preset->options : ""),
                                     cell.defines("job"), cell.defines("ajob"));
            o.preset = preset;
            o.preset_job = preset && empty_cell;
            o.targets = std::move(targets);
            o.python_given = typed.has("python");
            const std::vector<configuration> configs = plan(o);
            progress_line progress("gilbench");
            std::vector<interpreter_rows> blocks;
            for (const measurement_target& target : o.targets)
            {
                interpreter_rows b{target, "", {}, {}};
                if (target.is_kernel)
                {
                    b.target.info = kernel_interpreter_info();
                    b.label = b.target.info.label() + " (kernel)";
                    b.rows = measure_in_kernel(cell, configs, o, progress, o.python_given ? b.label + ": " : "");
                }
                else
                {
                    b.label = target.info.label() + " (" + target.requested + ")";
                    progress.update(b.label + ": starting a child interpreter");
                    b.rows = gilbench::measure_in_child(target, cell, configs, o, [&](const std::string& status)
                                                        { progress.update(b.label + ": " + status); });
                }
                for (std::size_t c = 0; c < b.rows.size(); ++c)
                {
                    measured& m = b.rows[c];
                    // A run stopped at --budget still gets its memory figure: the fresh
                    // interpreter's plain pool may be quicker (10,000 one-per-job threads).
                    if (o.memory && !m.skipped)
                    {
                        progress.update((o.python_given ? b.label + ": " : "") + status_line(m.config, -1, o, c, configs.size()));
                        m.memory = measure_peak_rss(cell, m.config, o, o.budget_s + (m.over_budget ? 5.0 : 30.0),
                                                    target.is_kernel ? "" : target.info.executable);
                        if (!m.memory.problem.empty()) m.flags.push_back(m.memory.problem);
                    }
                    summarize_runs(m);
                    if (m.config.mode == "sequential" && !m.walls.empty() && !b.sequential_walls.count(m.config.base_jobs))
                        b.sequential_walls[m.config.base_jobs] = m.wall.median;
                }
                blocks.push_back(std::move(b));
            }
            progress.update("done: " + std::to_string(configs.size() * blocks.size()) + " configurations measured");
            return build_result(blocks, o);
        }
    }

    // The result object of %%gilbench: a Result with lookups by mode, workers and jobs.
    struct gilbench_result : Result
    {
        explicit gilbench_result(Result r) : Result(std::move(r)) {}

        // python: as --python named it ("3.13t", "kernel") or the row's label; None: the first.
        std::size_t interpreter_index(const py::object& python) const
        {
            if (python.is_none()) return 0;
            const std::string wanted = py::str(python).cast<std::string>();
            const nl::json& interpreters = data["interpreters"];
            for (std::size_t i = 0; i < interpreters.size(); ++i)
            {
                if (interpreters[i]["requested"] == wanted || interpreters[i]["python"] == wanted) return i;
            }
            std::string known;
            for (const nl::json& i : interpreters) known += (known.empty() ? "" : ", ") + i["requested"].get<std::string>();
            throw py::key_error("no interpreter '" + wanted + "' in this result; measured: " + known);
        }

        // workers: a count, or the spec as typed ("default", "per-job").
        const nl::json& run(const std::string& mode, const py::object& workers, const py::object& jobs,
                            const py::object& python) const
        {
            const std::size_t index = interpreter_index(python);
            for (const nl::json& r : data["runs"])
            {
                if (r["interpreter_index"] != index || r["mode"] != mode) continue;
                if (!jobs.is_none() && r["base_jobs"] != jobs.cast<long long>() && r["jobs"] != jobs.cast<long long>()) continue;
                if (mode == "sequential") return r;
                if (!py::isinstance<py::str>(workers))
                {
                    if (r["workers"] == workers.cast<long long>()) return r;
                    continue;
                }
                std::string spec = workers.cast<std::string>();
                if (mode == "asyncio" && spec == "default") spec = "per-job";  // gather's default: no limit
                if (r["workers_spec"] == spec) return r;
            }
            throw py::key_error("no run for mode '" + mode + "' with " + py::str(workers).cast<std::string>() + " workers" +
                                (jobs.is_none() ? std::string() : " and " + py::str(jobs).cast<std::string>() + " jobs") +
                                (python.is_none() ? std::string() : " under " + py::str(python).cast<std::string>()));
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
        const auto one = py::int_(1);
        py::class_<gilbench_result, Result>(m, "GilbenchResult")
            .def("speedup", [](const gilbench_result& r, const std::string& mode, py::object workers, py::object jobs, py::object python)
                 { return py::cast(r.run(mode, workers, jobs, python)["speedup"]); }, "mode"_a, "workers"_a = one, "jobs"_a = py::none(), "python"_a = py::none(),
                 "jobs per second against sequential for one mode, worker count (or 'default' / 'per-job') and --jobs value")
            .def("wall", [](const gilbench_result& r, const std::string& mode, py::object workers, py::object jobs, py::object python)
                 { return median_or_none(r.run(mode, workers, jobs, python)["wall_s"]); }, "mode"_a, "workers"_a = one, "jobs"_a = py::none(), "python"_a = py::none(),
                 "median wall time in seconds (None when the run was stopped at --budget)")
            .def("cpu", [](const gilbench_result& r, const std::string& mode, py::object workers, py::object jobs, py::object python)
                 { return median_or_none(r.run(mode, workers, jobs, python)["cpu_s"]); }, "mode"_a, "workers"_a = one, "jobs"_a = py::none(), "python"_a = py::none(),
                 "median CPU time (user+system, children included) in seconds (None when stopped at --budget)")
            .def("peak_rss_mib", [](const gilbench_result& r, const std::string& mode, py::object workers, py::object jobs, py::object python)
                 {
                     const nl::json& run = r.run(mode, workers, jobs, python);
                     if (!run.contains("peak_rss_bytes") || run["peak_rss_bytes"].is_null()) return py::object(py::none());
                     return py::object(py::float_(run["peak_rss_bytes"].get<double>() / (1024.0 * 1024.0)));
                 }, "mode"_a, "workers"_a = one, "jobs"_a = py::none(), "python"_a = py::none(),
                 "peak RSS in MiB of the run in a fresh interpreter (--memory), else None")
            .def("best", [](const gilbench_result& r, py::object python)
                 {
                     const std::size_t index = r.interpreter_index(python);
                     const nl::json* best = nullptr;
                     for (const nl::json& run : r.data["runs"])
                         if (run["wall_s"].is_null() || run["interpreter_index"] != index) continue;
                         else if (!best || run["wall_s"]["median"].get<double>() < (*best)["wall_s"]["median"].get<double>()) best = &run;
                     if (!best) throw py::value_error("no runs were measured");
                     return py::make_tuple((*best)["mode"].get<std::string>(), (*best)["workers"].get<long long>());
                 }, "python"_a = py::none(), "(mode, workers) of the fastest configuration (under one interpreter)");
    }

    magic_definition gilbench_magic()
    {
        return {"gilbench", magic_kind::line_cell, parser(), &measure,
                [](Result r) { return py::cast(gilbench_result(std::move(r))); }, &bind_gilbench_result};
    }
}
