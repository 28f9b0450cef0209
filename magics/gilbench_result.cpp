// %%gilbench's result: one block of rows per interpreter (the kernel's and
// any --python child's) as the table, the chart and the JSON every renderer
// takes (gillab.results.GilbenchResult looks runs up in it).
#include <algorithm>
#include <sstream>

#include "render/figures.hpp"
#include "render/number_format.hpp"
#include "gilbench.hpp"

namespace gillab
{

    namespace
    {
        using gilbench::configuration;
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
                return work / static_cast<double>(std::min(parallel, o.core_count()));
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

        // What one configuration's row shows besides its raw runs.
        struct row_figures
        {
            bool timed = false;
            double sequential_wall = 0;
            std::optional<double> speedup, cores, rss_mib, limit;
            std::optional<published_row> published;
            std::string flags;
        };

        row_figures figures_of(const interpreter_rows& b, const measured& m, const options& o, const preset_figures& figures)
        {
            const configuration& c = m.config;
            row_figures f;
            f.timed = !m.walls.empty();
            const auto seq = b.sequential_walls.find(c.base_jobs);
            f.sequential_wall = seq == b.sequential_walls.end() ? 0 : seq->second;
            if (f.timed && f.sequential_wall > 0)
                f.speedup = (static_cast<double>(c.jobs) / m.wall.median) / (static_cast<double>(c.base_jobs) / f.sequential_wall);
            if (f.timed && m.wall.median > 0) f.cores = m.cpu.median / m.wall.median;
            if (m.memory.peak_rss_bytes) f.rss_mib = *m.memory.peak_rss_bytes / (1024.0 * 1024.0);
            f.limit = fastest_possible(o, c, f.sequential_wall);
            f.published = published_for(figures, c);
            for (const std::string& flag : m.flags) f.flags += (f.flags.empty() ? "" : ", ") + flag;
            return f;
        }

        // The optional columns: shown when some row has a figure for them.
        struct shown_columns
        {
            bool published_wall = false, published_speedup = false, published_rss = false, limit = false;
        };

        shown_columns which_columns(const std::vector<interpreter_rows>& blocks, const options& o, const preset_figures& figures)
        {
            shown_columns shown;
            for (const interpreter_rows& b : blocks)
            {
                for (const measured& m : b.rows)
                {
                    const row_figures f = figures_of(b, m, o, figures);
                    shown.published_wall |= f.published && f.published->wall_s.has_value();
                    shown.published_speedup |= f.published && f.published->speedup.has_value();
                    shown.published_rss |= f.published && f.published->peak_rss_mb.has_value();
                    shown.limit |= f.limit.has_value();
                }
            }
            return shown;
        }

        std::vector<Column> columns(const options& o, const shown_columns& shown)
        {
            std::vector<Column> out;
            if (o.python_given) out.push_back({"python", "python", ""});
            out.insert(out.end(), {{"mode", "mode", ""}, {"workers", "workers", ""}, {"jobs", "jobs", ""}, {"wall_median", "wall median", "s"}, {"wall_iqr", "spread (IQR)", "s"}, {"speedup", "speed-up", "x"}, {"cpu_median", "CPU", "s"}, {"cores_used", "cores used", ""}});
            if (o.memory) out.push_back({"peak_rss", "peak RSS", "MiB"});
            if (shown.limit) out.push_back({"fastest_possible", "fastest possible", "s"});
            if (shown.published_wall) out.push_back({"published_wall", "published", "s"});
            if (shown.published_speedup) out.push_back({"published_speedup", "published", "x"});
            if (shown.published_rss) out.push_back({"published_rss", "published RSS", "MB"});
            out.push_back({"flags", "flags", ""});
            return out;
        }

        Row table_row(const interpreter_rows& b, const measured& m, const row_figures& f, const options& o,
                      const shown_columns& shown)
        {
            const configuration& c = m.config;
            Row row;
            if (o.python_given) row.push_back(b.label);
            row.insert(row.end(), {c.mode, static_cast<std::int64_t>(c.workers), static_cast<std::int64_t>(c.jobs),
                                   f.timed ? Cell{m.wall.median} : Cell{}, f.timed ? Cell{m.wall.iqr()} : Cell{},
                                   number_or_blank(f.speedup), f.timed ? Cell{m.cpu.median} : Cell{}, number_or_blank(f.cores)});
            if (o.memory) row.push_back(number_or_blank(f.rss_mib));
            if (shown.limit) row.push_back(number_or_blank(f.limit));
            if (shown.published_wall) row.push_back(f.published ? number_or_blank(f.published->wall_s) : Cell{});
            if (shown.published_speedup) row.push_back(f.published ? number_or_blank(f.published->speedup) : Cell{});
            if (shown.published_rss) row.push_back(f.published ? number_or_blank(f.published->peak_rss_mb) : Cell{});
            row.push_back(f.flags);
            return row;
        }

        // One configuration in the JSON: its figure, the runs behind it, its flags.
        nl::json run_record(const interpreter_rows& b, std::size_t index, const measured& m, const row_figures& f,
                            const options& o)
        {
            const configuration& c = m.config;
            nl::json run = {{"python", b.label}, {"requested", b.target.requested}, {"interpreter_index", index}, {"mode", c.mode}, {"workers", c.workers}, {"workers_spec", c.workers_spec}, {"jobs", c.jobs}, {"base_jobs", c.base_jobs}, {"wall_s", f.timed ? to_json(m.wall) : nl::json(nullptr)}, {"cpu_s", f.timed ? to_json(m.cpu) : nl::json(nullptr)}, {"wall_runs_s", m.walls}, {"cpu_runs_s", m.cpus}, {"speedup", number_or_null(f.speedup)}, {"cores_used", number_or_null(f.cores)}, {"over_budget", m.over_budget}, {"skipped", m.skipped}, {"results_match", f.timed ? nl::json(m.results_match) : nl::json(nullptr)}, {"flags", m.flags}, {"fastest_possible_s", number_or_null(f.limit)}};
            if (o.memory)
            {
                run["peak_rss_bytes"] = number_or_null(m.memory.peak_rss_bytes);
                run["largest_child_rss_bytes"] = number_or_null(m.memory.largest_child_rss_bytes);
            }
            if (f.published)
            {
                run["published"] = {{"wall_s", number_or_null(f.published->wall_s)},
                                    {"speedup", number_or_null(f.published->speedup)},
                                    {"peak_rss_mb", number_or_null(f.published->peak_rss_mb)}};
            }
            return run;
        }

        // Wall time by workers: a series per mode (and job count, and interpreter),
        // sequential as a reference rule.
        class wall_chart
        {
        public:
            explicit wall_chart(const options& o)
                : m_specs(o.worker_specs)
            {
                // Weak scaling gives each worker the same work: the total grows with the workers.
                m_chart.title = o.weak_scaling ? "Wall time by workers, the same work per worker (flat: it scaled perfectly)"
                                               : "Wall time by workers, the same total work (lower is faster)";
                m_chart.x_title = "workers";
                m_chart.y_title = "median wall time (s)";
                for (const std::string& spec : o.worker_specs) m_chart.categories.push_back(spec);
            }

            void add(const measured& m, const std::string& suffix, std::size_t table_row)
            {
                const configuration& c = m.config;
                if (c.mode == "sequential")
                {
                    m_chart.rules.push_back({"sequential" + suffix, m.wall.median});
                    return;
                }
                auto found = m_series.find(c.mode + suffix);
                if (found == m_series.end())
                {
                    found = m_series.emplace(c.mode + suffix, m_chart.series.size()).first;
                    m_chart.series.push_back({c.mode + suffix, {}, {}});
                }
                auto position = std::find(m_specs.begin(), m_specs.end(), c.workers_spec);
                if (position == m_specs.end()) position = std::find(m_specs.begin(), m_specs.end(), "default");
                ChartSeries& series = m_chart.series[found->second];
                series.x.push_back(static_cast<double>(position - m_specs.begin()));
                series.y.push_back(m.wall.median);
                series.rows.push_back(table_row);
            }

            std::optional<Chart> chart() const
            {
                if (m_chart.series.empty() && m_chart.rules.empty()) return std::nullopt;
                return m_chart;
            }

        private:
            std::vector<std::string> m_specs;
            Chart m_chart;
            std::map<std::string, std::size_t> m_series;
        };

        std::vector<std::string> mismatches(const std::vector<interpreter_rows>& blocks, const options& o)
        {
            std::vector<std::string> out;
            for (const interpreter_rows& b : blocks)
            {
                for (const measured& m : b.rows)
                {
                    if (m.results_match || m.walls.empty()) continue;
                    out.push_back((o.python_given ? b.label + ": " : std::string()) + m.config.mode + " with " +
                                  count_text(m.config.workers, "worker") + " (" + count_text(m.config.jobs, "job") +
                                  ") returned different results from sequential");
                }
            }
            return out;
        }

        bool any_over_budget(const std::vector<interpreter_rows>& blocks)
        {
            for (const interpreter_rows& b : blocks)
                for (const measured& m : b.rows)
                    if (m.over_budget) return true;
            return false;
        }

        std::string table_title(const options& o)
        {
            // One count reads "1 job"; several, "100 / 1,000 / 10,000 jobs" (a comma would split 1,000).
            std::string jobs_text;
            for (long long n : o.jobs) jobs_text += (jobs_text.empty() ? "" : " / ") + grouped(n);
            jobs_text = o.jobs.size() == 1 ? count_text(o.jobs.front(), "job") : jobs_text + " jobs";
            return "gilbench" + (o.preset ? " --preset " + o.preset->name : std::string()) + ": " + jobs_text +
                   (o.weak_scaling ? " per worker" : "") + ", median of " + count_text(o.repeats, "run") + ", " +
                   count_text(o.core_count(), "CPU");
        }

        std::vector<std::string> notes(const std::vector<interpreter_rows>& blocks, const options& o,
                                       const preset_figures& figures, const shown_columns& shown,
                                       const std::vector<std::string>& differing, bool over_budget)
        {
            const long long cpus = o.core_count();
            std::vector<std::string> out;
            out.push_back("speed-up: jobs per second of the median run against sequential's median run, the figure the result's speedup() returns; with " + count_text(cpus, "core") +
                          " usable (set by " + o.cores.at("why").get<std::string>() +
                          "), CPU-bound work cannot exceed " + std::to_string(cpus) + "x.");
            out.push_back("cores used: CPU time / wall time; about 1 means the GIL (or one core) was the limit.");
            if (std::count(o.modes.begin(), o.modes.end(), "threads"))
                out.push_back("threads: a concurrent.futures.ThreadPoolExecutor of N workers mapping the jobs, "
                              "timed from its creation to its shutdown (its threads start as jobs are handed "
                              "out); sequential: the jobs one after another in the kernel's own thread.");
            if (std::count(o.worker_specs.begin(), o.worker_specs.end(), "default"))
                out.push_back("workers default: the library's own default, here " +
                              count_text(std::min(32LL, cpus + 4), "thread") + " (min(32, CPUs+4)), " +
                              count_text(cpus, "process", "processes") + ", no limit for asyncio; per-job: one worker per job.");
            if (shown.limit)
                out.push_back("fastest possible: N waits in W workers take at least ceil(N/W) waits; CPU-bound "
                              "work at best divides the sequential time by min(workers, CPUs).");
            if (o.memory)
                out.push_back("peak RSS: one run in a fresh interpreter (ThreadPoolExecutor, ProcessPoolExecutor "
                              "or asyncio.gather), the interpreter's own peak; for processes, the largest "
                              "worker is in the JSON.");
            if (!figures.source.empty()) out.push_back("published: " + figures.source + ".");
            if (o.preset && !o.preset_job)
                out.push_back("published figures belong to the preset's own job: leave the cell empty to compare.");
            if (std::any_of(blocks.begin(), blocks.end(), [](const interpreter_rows& b) { return !b.target.is_kernel; }))
                out.push_back("other interpreters (--python): measured in a child process of each by the same "
                              "code (speed-up against that interpreter's own sequential run).");
            for (const std::string& m : differing) out.push_back("RESULTS DIFFER: " + m);
            if (over_budget)
            {
                std::ostringstream note;
                note << "stopped at --budget: a run still going after " << o.budget_s
                     << " s was stopped (its jobs got RunOverBudget, worker processes were killed).";
                out.push_back(note.str());
            }
            return out;
        }

        nl::json options_json(const std::vector<interpreter_rows>& blocks, const options& o)
        {
            nl::json requested = nl::json::array();
            for (const interpreter_rows& b : blocks) requested.push_back(b.target.requested);
            return {{"modes", o.modes}, {"workers", workers_json(o.worker_specs)}, {"jobs", o.jobs}, {"repeats", o.repeats}, {"warmup", o.warmup}, {"scaling", o.weak_scaling ? "weak" : "strong"}, {"start_method", o.start_method.empty() ? blocks.front().start_method : o.start_method}, {"startup", o.startup_included ? "included" : "apart"}, {"memory", o.memory}, {"python", requested}};
        }

        nl::json interpreter_record(const interpreter_rows& b)
        {
            return {{"python", b.label}, {"requested", b.target.requested}, {"kernel", b.target.is_kernel}, {"interpreter", b.target.info.raw}, {"start_method", b.start_method}};
        }
    }

    Result gilbench::build_result(const std::vector<interpreter_rows>& blocks, const options& o)
    {
        // The preset's published figures only beside its own job: another job is not what was published.
        const preset_figures figures = o.preset && o.preset_job ? o.preset->published : preset_figures{};
        const shown_columns shown = which_columns(blocks, o, figures);
        Result result;
        result.magic = "gilbench";
        result.table.title = table_title(o);
        result.table.columns = columns(o, shown);
        wall_chart chart(o);
        nl::json runs = nl::json::array(), interpreters = nl::json::array();
        for (std::size_t index = 0; index < blocks.size(); ++index)
        {
            const interpreter_rows& b = blocks[index];
            interpreters.push_back(interpreter_record(b));
            // Several interpreters: each one's series and sequential line named after it.
            // The label (version and build), never the path the student may have typed.
            const std::string by = blocks.size() > 1 ? " · " + b.label : "";
            for (const measured& m : b.rows)
            {
                const row_figures f = figures_of(b, m, o, figures);
                result.table.rows.push_back(table_row(b, m, f, o, shown));
                runs.push_back(run_record(b, index, m, f, o));
                if (!f.timed) continue;
                chart.add(m, (o.jobs.size() > 1 ? " (" + count_text(m.config.base_jobs, "job") + ")" : "") + by,
                          result.table.rows.size() - 1);
            }
        }
        const std::vector<std::string> differing = mismatches(blocks, o);
        const bool over_budget = any_over_budget(blocks);
        result.table.notes = notes(blocks, o, figures, shown, differing, over_budget);
        result.chart = chart.chart();
        result.data = {{"runs", runs},
                       {"interpreters", interpreters},
                       {"results_match", differing.empty()},
                       {"mismatches", differing},
                       {"over_budget", over_budget},
                       {"budget_s", o.budget_s},
                       {"cpu_count", o.core_count()},
                       {"cores_limited_by", o.cores.at("limited_by")},
                       {"cores_why", o.cores.at("why")},
                       {"preset", o.preset ? nl::json(o.preset->name) : nl::json(nullptr)},
                       {"published_source", o.preset && o.preset_job ? nl::json(figures.source) : nl::json(nullptr)},
                       {"options", options_json(blocks, o)}};
        return result;
    }
}
