// %%gilbench: one cell's work, run sequentially, in threads, in processes
// and under asyncio at several worker counts; a table of medians, spreads,
// speed-ups and CPU time. Reads as: parse -> measure (gilbench_measure.cpp:
// runners/task_gilbench.py in the kernel or a child) -> result (gilbench_result.cpp).
#include <algorithm>

#include <pybind11/stl.h>

#include "framework/cell_module.hpp"
#include "framework/progress.hpp"
#include "framework/registry.hpp"
#include "framework/runner.hpp"
#include "base/stats.hpp"
#include "framework/python_side.hpp"
#include "gilbench.hpp"
#include "manual.hpp"

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

        using gilbench::build_result;
        using gilbench::configuration;
        using gilbench::interpreter_rows;
        using gilbench::measured;
        using gilbench::options;
        using gilbench::peak_memory;

        // ---- parse ----------------------------------------------------------

        arg_parser parser()
        {
            return manual_parser(
                "gilbench",
                {{"preset", 'p', "NAME", "one of the course's tables: " + join_names(gilbench_preset_names()) + " (see Presets above)"},
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
                 output_option()},
                {{"presets", gilbench_presets_help()}});
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

        // A --workers item as a count for one mode and --jobs value.
        long long resolve_workers(const std::string& spec, const std::string& mode, long long base_jobs, long long cores)
        {
            if (spec == "per-job" || (spec == "default" && mode == "asyncio")) return base_jobs;
            if (spec == "default") return mode == "processes" ? cores : std::min(32LL, cores + 4);
            return std::stoll(spec);
        }

        std::vector<configuration> plan(const options& o)
        {
            std::vector<configuration> configs;
            auto seen = [&](const configuration& c) {
                return std::any_of(configs.begin(), configs.end(), [&](const configuration& k) { return k.mode == c.mode && k.workers == c.workers && k.jobs == c.jobs; });
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
                        const long long w = resolve_workers(spec, mode, n, o.core_count());
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
                                  "or --preset NAME (" +
                                  join_names(gilbench_preset_names()) + ")");
            }
            std::vector<measurement_target> targets = resolve_interpreters(typed.text("python", ""), "gilbench");
            cell_module cell("gilbench", empty_cell ? preset_job_source(*preset) : *call.cell, {"job", "ajob"});
            // Imported here only if the kernel measures: setup runs where the jobs run.
            if (std::any_of(targets.begin(), targets.end(), [](const measurement_target& t) { return t.is_kernel; }))
                cell.module();
            options o = read_options(typed, parser().parse(preset ? preset->options : ""),
                                     cell.defines("job"), cell.defines("ajob"));
            o.preset = preset;
            o.preset_job = preset && empty_cell;
            o.cores = python_side::usable_cores();
            o.targets = std::move(targets);
            o.python_given = typed.has("python");
            const std::vector<configuration> configs = plan(o);
            progress_line progress("gilbench");
            std::vector<interpreter_rows> blocks;
            for_each_interpreter(o.targets, &progress, [&](const interpreter_turn& turn) {
                interpreter_rows b{turn.target, turn.label, {}, {}, {}};
                // The kernel alone: its progress without the label.
                const status_callback report = turn.target.is_kernel && !o.python_given
                                                   ? status_callback([&progress](const std::string& status) { progress.update(status); })
                                                   : turn.progress;
                gilbench::measure_under(b, cell, configs, o, report);
                for (measured& m : b.rows)
                {
                    summarize_runs(m);
                    if (m.config.mode == "sequential" && !m.walls.empty() && !b.sequential_walls.count(m.config.base_jobs))
                        b.sequential_walls[m.config.base_jobs] = m.wall.median;
                }
                blocks.push_back(std::move(b));
            });
            progress.update("done: " + std::to_string(configs.size() * blocks.size()) + " configurations measured");
            Result result = build_result(blocks, o);
            add_interpreter_notes(result.table.notes, o.targets);
            return result;
        }
    }

    magic_definition gilbench_magic()
    {
        return {"gilbench", magic_kind::line_cell, parser(), &measure};
    }
}
