// %%gilbench's result: one block of rows per interpreter (the kernel's and
// any --python child's) as the table, the chart and the JSON every renderer
// takes, and the GilbenchResult object with lookups by mode, workers, jobs
// and interpreter.
#include <algorithm>
#include <sstream>

#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

#include "render/figures.hpp"
#include "render/number_format.hpp"
#include "framework/py_result.hpp"
#include "gilbench.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        using gilbench::configuration;
        using gilbench::cpu_count;
        using gilbench::interpreter_rows;
        using gilbench::measured;
        using gilbench::options;

        std::optional<published_row> published_for(const preset_figures& figures, const configuration& c)
        {
            for (const published_row& p : figures.rows)
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
    }

    Result gilbench::build_result(const std::vector<interpreter_rows>& blocks, const options& o)
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
                                     count_text(m.config.workers, "worker") + " (" + count_text(m.config.jobs, "job") +
                                     ") returned different results from sequential");
            }
        }
        // The preset's published figures only beside its own job: another job is not what was published.
        const preset_figures figures = o.preset && o.preset_job ? published_figures(*o.preset) : preset_figures{};
        Result result;
        result.magic = "gilbench";
        const long long cpus = cpu_count();
        // One count reads "1 job"; several, "100 / 1,000 / 10,000 jobs" (a comma would split 1,000).
        std::string jobs_text;
        for (long long n : o.jobs) jobs_text += (jobs_text.empty() ? "" : " / ") + grouped(n);
        jobs_text = o.jobs.size() == 1 ? count_text(o.jobs.front(), "job") : jobs_text + " jobs";
        result.table.title = "gilbench" + (o.preset ? " --preset " + o.preset->name : std::string()) + ": " +
                             jobs_text + (o.weak_scaling ? " per worker" : "") + ", median of " +
                             count_text(o.repeats, "run") + ", " + count_text(cpus, "CPU");
        bool any_published_wall = false, any_published_speedup = false, any_published_rss = false, any_limit = false;
        for (const interpreter_rows& b : blocks)
        {
            for (const measured& m : b.rows)
            {
                const auto p = published_for(figures, m.config);
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
                const auto published = published_for(figures, c);
                const auto limit = fastest_possible(o, c, sequential_wall);
                std::optional<double> rss_mib;
                if (m.memory.peak_rss_bytes) rss_mib = *m.memory.peak_rss_bytes / (1024.0 * 1024.0);
                std::string flags;
                for (const std::string& f : m.flags) flags += (flags.empty() ? "" : ", ") + f;

                Row row;
                if (o.python_given) row.push_back(b.label);
                row.insert(row.end(), {c.mode, static_cast<std::int64_t>(c.workers), static_cast<std::int64_t>(c.jobs),
                           timed ? Cell{m.wall.median} : Cell{}, timed ? Cell{m.wall.iqr()} : Cell{},
                           number_or_blank(speedup), timed ? Cell{m.cpu.median} : Cell{}, number_or_blank(cores)});
                if (o.memory) row.push_back(number_or_blank(rss_mib));
                if (any_limit) row.push_back(number_or_blank(limit));
                if (any_published_wall) row.push_back(published ? number_or_blank(published->wall_s) : Cell{});
                if (any_published_speedup) row.push_back(published ? number_or_blank(published->speedup) : Cell{});
                if (any_published_rss) row.push_back(published ? number_or_blank(published->peak_rss_mb) : Cell{});
                row.push_back(flags);
                result.table.rows.push_back(row);

                nl::json run = {{"python", b.label}, {"requested", b.target.requested}, {"interpreter_index", index},
                                {"mode", c.mode}, {"workers", c.workers}, {"workers_spec", c.workers_spec},
                                {"jobs", c.jobs}, {"base_jobs", c.base_jobs},
                                {"wall_s", timed ? to_json(m.wall) : nl::json(nullptr)},
                                {"cpu_s", timed ? to_json(m.cpu) : nl::json(nullptr)}, {"wall_runs_s", m.walls},
                                {"speedup", number_or_null(speedup)}, {"cores_used", number_or_null(cores)},
                                {"over_budget", m.over_budget}, {"skipped", m.skipped},
                                {"results_match", timed ? nl::json(m.results_match) : nl::json(nullptr)},
                                {"flags", m.flags}, {"fastest_possible_s", number_or_null(limit)}};
                if (o.memory)
                {
                    run["peak_rss_bytes"] = number_or_null(m.memory.peak_rss_bytes);
                    run["largest_child_rss_bytes"] = number_or_null(m.memory.largest_child_rss_bytes);
                }
                if (published)
                {
                    run["published"] = {{"wall_s", number_or_null(published->wall_s)},
                                        {"speedup", number_or_null(published->speedup)},
                                        {"peak_rss_mb", number_or_null(published->peak_rss_mb)}};
                }
                runs.push_back(run);

                if (!timed) continue;
                const std::string suffix = (several_jobs ? " (" + count_text(c.base_jobs, "job") + ")" : "") + by;
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
                chart.series[found->second].rows.push_back(result.table.rows.size() - 1);
            }
        }
        result.table.notes.push_back("speed-up: jobs per second against sequential; with " + count_text(cpus, "CPU") +
                                     ", CPU-bound work cannot exceed " + std::to_string(cpus) + "x.");
        result.table.notes.push_back("cores used: CPU time / wall time; about 1 means the GIL (or one core) was the limit.");
        if (std::count(o.worker_specs.begin(), o.worker_specs.end(), "default"))
            result.table.notes.push_back("workers default: the library's own default, here " +
                                         count_text(std::min(32LL, cpus + 4), "thread") + " (min(32, CPUs+4)), " +
                                         count_text(cpus, "process", "processes") + ", no limit for asyncio; per-job: one worker per job.");
        if (any_limit)
            result.table.notes.push_back("fastest possible: N waits in W workers take at least ceil(N/W) waits; CPU-bound "
                                         "work at best divides the sequential time by min(workers, CPUs).");
        if (o.memory)
            result.table.notes.push_back("peak RSS: one run in a fresh interpreter (ThreadPoolExecutor, ProcessPoolExecutor "
                                         "or asyncio.gather), the interpreter's own peak; for processes, the largest "
                                         "worker is in the JSON.");
        if (!figures.source.empty()) result.table.notes.push_back("published: " + figures.source + ".");
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
                       {"published_source", o.preset && o.preset_job ? nl::json(figures.source) : nl::json(nullptr)},
                       {"options", {{"modes", o.modes}, {"workers", workers_json(o.worker_specs)}, {"jobs", o.jobs},
                                    {"repeats", o.repeats}, {"warmup", o.warmup},
                                    {"scaling", o.weak_scaling ? "weak" : "strong"},
                                    {"start_method", o.start_method.empty()
                                         ? py::module_::import("gillab.runners.start_method").attr("current")().cast<std::string>()
                                         : o.start_method},
                                    {"startup", o.startup_included ? "included" : "apart"},
                                    {"memory", o.memory},
                                    {"python", requested}}}};
        return result;
    }

    // The result object of %%gilbench: a Result with lookups by mode, workers and jobs.
    struct gilbench_result : Result
    {
        explicit gilbench_result(Result r) : Result(std::move(r)) {}

        std::size_t interpreter_index(const py::object& python) const
        {
            return gillab::interpreter_index(data["interpreters"], python);
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

    py::object gilbench::wrap_result(Result result)
    {
        return py::cast(gilbench_result(std::move(result)));
    }

    void gilbench::bind_result(py::module_& m)
    {
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
}
