// %switchinterval: show or set sys.setswitchinterval, or measure it as a
// latency dial: per interval, how late a probe thread gets the GIL while a
// CPU-bound spinner holds it, and what the spinner pays for the hand-overs.
// Reads as: parse -> measure -> result.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

#include "workers/child_interpreter.hpp"
#include "render/figures.hpp"
#include "instruments/gil_probe.hpp"
#include "instruments/gil_timeline.hpp"
#include "framework/progress.hpp"
#include "framework/python_side.hpp"
#include "instruments/python_probe.hpp"
#include "framework/registry.hpp"
#include "framework/runner.hpp"
#include "instruments/spinner.hpp"
#include "base/stats.hpp"
#include "instruments/switch_interval.hpp"
#include "manual.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        constexpr double default_interval_s = 0.005;  // CPython's DEFAULT_INTERVAL
        constexpr double settle_s = 0.05;  // after a change, before measuring
        // A child sends its samples as JSON: past this many it keeps an even subsample.
        constexpr std::size_t max_child_samples = 20000;

        struct options
        {
            std::vector<double> intervals_s;
            std::string probe;  // sleep | yield | none
            std::string load;  // a spinner load or none
            double every_s;
            double duration_s;
            bool timeline;
            std::vector<measurement_target> targets;  // --sweep only
        };

        // The published medians (gillab/course/published.json) beside a Python spinner on a GIL build.
        std::optional<double> published_median(const nl::json& published, const std::string& probe, const std::string& load,
                                               double interval_s)
        {
            if (load != "python") return std::nullopt;
            for (const nl::json& f : published["medians"])
            {
                if (f["probe"] == probe && std::fabs(f["interval_s"].get<double>() - interval_s) < 1e-9)
                    return f["median_ms"].get<double>();
            }
            return std::nullopt;
        }

        std::string interval_label(double seconds)
        {
            return ms_text(seconds * 1e3);
        }

        // ---- parse ----------------------------------------------------------

        arg_parser parser()
        {
            std::string loads;
            for (const spinner_load& load : spinner_loads()) loads += "\n    " + load.name + ": " + load.step;
            return manual_parser(
                "switchinterval",
                {{"sweep", 's', "DURATION,...", "intervals to measure, such as 5ms,1ms,0.2ms"},
                 {"probe", 'p', "sleep|yield|none", "the probe thread (default sleep)"},
                 {"load", 'l', "LOAD", "python, bigint, sorted, regex, zlib or none (default python)"},
                 {"every", 0, "DURATION", "how often the sleep probe wants to run (default 1ms)"},
                 {"duration", 'd', "DURATION", "measuring time per interval (default 1s; --timeline 100ms, at most 1s)"},
                 {"timeline", 't', "", "record which thread held the GIL, turn by turn"},
                 python_option(),
                 output_option()},
                {{"loads", loads}},
                1,
                "VALUE: a new interval (5ms, 0.2ms, 200us or seconds such as 0.001)");
        }

        options read_options(const parsed_args& args)
        {
            options o;
            o.timeline = args.has("timeline");
            o.intervals_s = args.durations("sweep", {}, min_switch_interval_s, max_switch_interval_s);
            o.probe = args.choices("probe", {"sleep"}, {"sleep", "yield", "none"}, false)[0];
            std::vector<std::string> loads = spinner_load_names();
            loads.push_back("none");
            o.load = args.choices("load", {"python"}, loads, false)[0];
            o.every_s = args.duration("every", 0.001, 20e-6, 1.0);
            o.duration_s = args.duration("duration", o.timeline ? 0.1 : 1.0, 0.01, o.timeline ? 1.0 : 60.0);
            for (const char* name : {"probe", "load", "every", "python"})
            {
                if (o.timeline && args.has(name))
                    throw usage_error(std::string("%switchinterval: --timeline uses two pure-Python threads; --") + name +
                                      " applies to --sweep only");
            }
            if (o.probe == "none" && o.load == "none")
                throw usage_error("%switchinterval: --probe none with --load none measures nothing");
            if (!o.timeline && !o.intervals_s.empty()) o.targets = resolve_interpreters(args.text("python", ""), "switchinterval");
            return o;
        }

        // ---- measure --------------------------------------------------------

        // One interval of a sweep, measured in the kernel or in a child.
        struct interval_run
        {
            double interval_s;
            bool reference_only = false;  // measured for the rate baseline only
            gil_probe_summary probe;
            std::uint64_t steps = 0;
            double window_s = 0;
            double rate = std::nan("");  // spinner steps per second
        };

        std::size_t sample_capacity(const options& o, double interval_s)
        {
            const double every = o.probe == "yield" ? std::min(interval_s, 1e-4) : o.every_s;
            return static_cast<std::size_t>(std::min(4e6, o.duration_s / every * 1.2 + 1000));
        }

        // The intervals measured, in order: 5 ms first, as the spinner's
        // reference rate, when the sweep lacks it.
        std::vector<double> interval_plan(const options& o, bool& reference_first)
        {
            std::vector<double> plan = o.intervals_s;
            const bool has_default = std::any_of(plan.begin(), plan.end(),
                                                 [](double s) { return std::fabs(s - default_interval_s) < 1e-12; });
            reference_first = o.load != "none" && !has_default;
            if (reference_first) plan.insert(plan.begin(), default_interval_s);
            return plan;
        }

        // The request of runners/task_switchinterval.py; a child keeps fewer samples, as it sends them all.
        nl::json sweep_request(const options& o, const std::vector<double>& plan, bool in_kernel)
        {
            std::vector<std::size_t> capacities;
            for (double interval_s : plan)
                capacities.push_back(in_kernel ? sample_capacity(o, interval_s)
                                               : std::min(sample_capacity(o, interval_s), max_child_samples));
            return {{"task", "switchinterval"}, {"intervals_s", plan}, {"capacities", capacities}, {"probe", o.probe}, {"load", o.load}, {"every_s", o.every_s}, {"duration_s", o.duration_s}, {"settle_s", settle_s}};
        }

        std::vector<interval_run> read_runs(const nl::json& answer, const options& o)
        {
            std::vector<interval_run> runs;
            for (const nl::json& measured : answer.at("runs"))
            {
                interval_run run;
                run.interval_s = measured.at("interval_s").get<double>();
                run.window_s = measured.at("window_s").get<double>();
                run.steps = measured.at("spinner_steps").get<std::uint64_t>();
                // no step finished: one step outlasted the window, so its rate is unknown, not 0
                if (o.load != "none" && run.steps > 0) run.rate = static_cast<double>(run.steps) / run.window_s;
                if (!measured.at("probe").is_null()) run.probe = read_probe_summary(measured["probe"]);
                runs.push_back(run);
            }
            return runs;
        }

        // One interpreter's sweep, in the kernel or in a child.
        struct interpreter_sweep
        {
            measurement_target target;
            std::string label;
            std::vector<interval_run> runs;
        };

        std::vector<interpreter_sweep> measure_all(const options& o)
        {
            bool reference_first = false;
            const std::vector<double> plan = interval_plan(o, reference_first);
            progress_line progress("switchinterval");
            std::vector<interpreter_sweep> all;
            // The one loop, runners/task_switchinterval.py: in the kernel with the native probe, or in a child.
            for_each_interpreter(o.targets, &progress, [&](const interpreter_turn& turn) {
                const nl::json answer = run_task(turn.target, sweep_request(o, plan, turn.target.is_kernel), "switchinterval",
                                                 turn.progress);
                interpreter_sweep sweep{turn.target, turn.label, read_runs(answer, o)};
                if (reference_first && !sweep.runs.empty()) sweep.runs.front().reference_only = true;
                all.push_back(std::move(sweep));
            });
            progress.update("done; switch interval back to " + interval_label(switch_interval_s()));
            return all;
        }

        // ---- result ---------------------------------------------------------

        nl::json common_data(const options& o)
        {
            return {{"probe", o.probe}, {"load", o.load}, {"every_ms", o.every_s * 1e3}, {"duration_s", o.duration_s}, {"python_version", py::module_::import("platform").attr("python_version")().cast<std::string>()}, {"cpu_count", python_side::core_count()}, {"restored_interval_ms", switch_interval_s() * 1e3}};
        }

        // What a sweep's table, chart, notes and data are built from, computed once.
        struct interval_figures
        {
            const interval_run* run;
            std::size_t row;  // its row in the table
            double median, p95, worst;  // lateness, ms (NaN without a probe)
            double rate_x;  // the spinner's rate against 5 ms
            bool no_step_finished;
            std::optional<double> published;
        };

        struct sweep_view
        {
            const interpreter_sweep* sweep;
            std::vector<interval_figures> intervals;
        };

        double reference_rate(const interpreter_sweep& sweep)
        {
            double rate = std::nan("");
            for (const interval_run& run : sweep.runs)
            {
                if (std::fabs(run.interval_s - default_interval_s) < 1e-12) rate = run.rate;
            }
            return rate;
        }

        std::vector<sweep_view> sweep_views(const std::vector<interpreter_sweep>& all, const options& o, const nl::json& published)
        {
            const bool probed = o.probe != "none";
            std::vector<sweep_view> views;
            std::size_t row = 0;
            for (const interpreter_sweep& sweep : all)
            {
                sweep_view view{&sweep, {}};
                const double reference = reference_rate(sweep);
                for (const interval_run& run : sweep.runs)
                {
                    // Published figures are for GIL builds: the free-threaded rows get none beside them.
                    view.intervals.push_back({&run, row++, probed ? run.probe.lateness_ms.median : std::nan(""),
                                              probed ? run.probe.lateness_p95_ms : std::nan(""),
                                              probed ? run.probe.lateness_ms.max : std::nan(""), run.rate / reference,
                                              o.load != "none" && run.steps == 0,
                                              sweep.target.info.gil_enabled
                                                  ? published_median(published, o.probe, o.load, run.interval_s)
                                                  : std::nullopt});
                }
                views.push_back(std::move(view));
            }
            return views;
        }

        bool per_interpreter(const std::vector<interpreter_sweep>& all)
        {
            // One interpreter, the kernel: the table as it always was; otherwise a row per interpreter and interval.
            return all.size() > 1 || !all.front().target.is_kernel;
        }

        Table sweep_table(const std::vector<sweep_view>& views, const options& o, bool per_interpreter)
        {
            Table table;
            const std::string probe_text = o.probe == "sleep"   ? "a probe that wants the GIL every " + interval_label(o.every_s)
                                           : o.probe == "yield" ? "a probe that re-asks at once (time.sleep(0) style)"
                                                                : "no probe";
            table.title = "switch interval sweep: " +
                          (o.load == "none" ? std::string("idle interpreter") : "one " + o.load + " spinner") + ", " + probe_text;
            if (per_interpreter) table.columns = {{"python", "python", ""}, {"gil", "GIL", ""}};
            table.columns.insert(table.columns.end(),
                                 {{"interval", "interval", "ms"}, {"median", "median late", "ms"}, {"p95", "p95 late", "ms"}, {"max", "max late", "ms"}, {"late_x", "median / interval", "x"}, {"handovers", "hand-overs", ""}, {"rate", "spinner rate", "steps/s"}, {"rate_x", "rate vs 5 ms", "x"}, {"published", "published median", "ms"}});
            for (const sweep_view& view : views)
            {
                for (const interval_figures& f : view.intervals)
                {
                    const interval_run& run = *f.run;
                    Row row;
                    if (per_interpreter) row = {view.sweep->label, view.sweep->target.info.gil_enabled ? "on" : "off"};
                    row.insert(row.end(), {run.interval_s * 1e3, f.median, f.p95, f.worst, f.median / (run.interval_s * 1e3),
                                           static_cast<std::int64_t>(run.probe.acquisitions),
                                           o.load == "none" ? Cell{} : Cell{run.rate},
                                           o.load == "none" ? Cell{} : Cell{f.rate_x}, number_or_blank(f.published)});
                    table.rows.push_back(row);
                }
            }
            return table;
        }

        Chart sweep_chart(const std::vector<sweep_view>& views, bool per_interpreter)
        {
            Chart chart;
            chart.title = "How late the probe got the GIL, by switch interval";
            chart.x_title = "switch interval";
            chart.y_title = "lateness (ms)";
            for (const interval_run& run : views.front().sweep->runs) chart.categories.push_back(interval_label(run.interval_s));
            ChartSeries published_series{"published median", {}, {}};
            for (const sweep_view& view : views)
            {
                const std::string suffix = per_interpreter ? ", " + view.sweep->label : "";
                ChartSeries median_series{"median" + suffix, {}, {}}, p95_series{"p95" + suffix, {}, {}};
                for (std::size_t i = 0; i < view.intervals.size(); ++i)
                {
                    const interval_figures& f = view.intervals[i];
                    const double x = static_cast<double>(i);
                    median_series.x.push_back(x);
                    median_series.y.push_back(f.median);
                    median_series.rows.push_back(f.row);
                    p95_series.x.push_back(x);
                    p95_series.y.push_back(f.p95);
                    p95_series.rows.push_back(f.row);
                    if (f.published && &view == &views.front())
                    {
                        published_series.x.push_back(x);
                        published_series.y.push_back(*f.published);
                        published_series.rows.push_back(f.row);
                    }
                }
                chart.series.push_back(median_series);
                chart.series.push_back(p95_series);
            }
            if (!published_series.x.empty()) chart.series.push_back(published_series);
            return chart;
        }

        std::vector<std::string> sweep_notes(const std::vector<sweep_view>& views, const options& o, const nl::json& published,
                                             bool per_interpreter)
        {
            std::vector<std::string> notes;
            for (const sweep_view& view : views)
            {
                const interpreter_sweep& sweep = *view.sweep;
                for (const interval_figures& f : view.intervals)
                {
                    if (!f.no_step_finished) continue;
                    notes.push_back((per_interpreter ? sweep.label + ": " : std::string()) + "at " +
                                    interval_label(f.run->interval_s) + " no " + o.load + " step finished in the " +
                                    interval_label(f.run->window_s) + " window (one step is longer): no rate; try a longer --duration.");
                }
                if (!sweep.target.info.gil_enabled)
                {
                    notes.push_back(sweep.label + ": no GIL, so the interval has nothing to hand over: the probe "
                                                  "and the spinner run at once and the lateness stays what the OS gives "
                                                  "at every interval (published: the same lateness at every interval on "
                                                  "3.13t).");
                }
            }
            if (views.front().sweep->runs.front().reference_only)
                notes.push_back("5 ms row: measured only as the spinner's reference rate.");
            if (o.probe == "sleep") notes.push_back(published["sleep_note"].get<std::string>());
            if (o.probe == "yield") notes.push_back(published["yield_note"].get<std::string>());
            if (o.load != "python" && o.load != "none")
            {
                const spinner_load& load = find_spinner_load(o.load);
                notes.push_back("load: " + load.step + (load.releases_gil ? "; it lets the probe in while it works." : "; no interval can cut it, so lateness follows its length, not the interval."));
                if (o.load == "bigint") notes.push_back(published["long_c_note"].get<std::string>());
            }
            if (std::any_of(views.begin(), views.end(), [](const sweep_view& v) { return !v.sweep->target.is_kernel; }))
                notes.push_back(python_probe_caveat());
            notes.push_back("your switch interval is back at " + interval_label(switch_interval_s()) + ".");
            return notes;
        }

        nl::json interval_json(const interval_figures& f, bool probed)
        {
            const interval_run& run = *f.run;
            return {{"interval_ms", run.interval_s * 1e3}, {"reference_only", run.reference_only}, {"lateness_ms", probed ? to_json(run.probe.lateness_ms) : nl::json(nullptr)}, {"median_ms", number_or_null(f.median)}, {"p95_ms", number_or_null(f.p95)}, {"max_ms", number_or_null(f.worst)}, {"median_over_interval", number_or_null(f.median / (run.interval_s * 1e3))}, {"handovers", run.probe.acquisitions}, {"window_s", run.window_s}, {"spinner_steps", run.steps}, {"spinner_rate", number_or_null(run.rate)}, {"no_step_finished", f.no_step_finished}, {"rate_vs_default", number_or_null(f.rate_x)}, {"probe", probed ? to_json(run.probe) : nl::json(nullptr)}, {"published_median_ms", number_or_null(f.published)}};
        }

        nl::json sweep_data(const std::vector<sweep_view>& views, const options& o)
        {
            nl::json interpreters = nl::json::array();
            for (const sweep_view& view : views)
            {
                const interpreter_sweep& sweep = *view.sweep;
                nl::json rows = nl::json::array();
                for (const interval_figures& f : view.intervals) rows.push_back(interval_json(f, o.probe != "none"));
                interpreters.push_back({{"python", sweep.label}, {"requested", sweep.target.requested}, {"kernel", sweep.target.is_kernel}, {"interpreter", sweep.target.info.raw}, {"probe", sweep.target.is_kernel ? "native" : "python thread"}, {"runs", rows}});
            }
            nl::json data = common_data(o);
            data["mode"] = "sweep";
            data["runs"] = interpreters[0]["runs"];
            data["interpreters"] = interpreters;
            data["intervals_ms"] = nl::json::array();
            for (const interval_run& run : views.front().sweep->runs) data["intervals_ms"].push_back(run.interval_s * 1e3);
            return data;
        }

        Result sweep_result(const std::vector<interpreter_sweep>& all, const options& o)
        {
            const nl::json published = python_side::published_for_magic("switchinterval");
            const std::vector<sweep_view> views = sweep_views(all, o, published);
            const bool several = per_interpreter(all);
            Result result;
            result.magic = "switchinterval";
            result.table = sweep_table(views, o, several);
            result.table.notes = sweep_notes(views, o, published, several);
            if (o.probe != "none") result.chart = sweep_chart(views, several);
            result.data = sweep_data(views, o);
            return result;
        }

        const std::vector<std::string> timeline_lanes = {"thread A", "thread B"};

        nl::json lane_json(const gil_ownership& ownership, std::size_t thread)
        {
            nl::json segments = nl::json::array();
            double held_ms = 0;
            for (const gil_span& span : ownership.held[thread])
            {
                segments.push_back({{"start_ms", span.start_ms}, {"end_ms", span.end_ms}});
                held_ms += span.end_ms - span.start_ms;
            }
            return {{"lane", timeline_lanes[thread]}, {"thread", thread}, {"segments", segments}, {"held_ms", held_ms}};
        }

        std::vector<std::int64_t> stamps_of(py::handle stamps)
        {
            py::buffer_info info = py::reinterpret_borrow<py::buffer>(stamps).request();
            const auto* first = static_cast<const std::int64_t*>(info.ptr);
            return {first, first + info.size};
        }

        // One interval's stamps, recorded by runners/task_timeline.py in the kernel (one interval a
        // call: a second's stamps take tens of MB): its two stamping threads are the instrument,
        // read here straight from their arrays.
        gil_stamps record_timeline(double interval_s, double window_s)
        {
            const nl::json request = {{"task", "timeline"}, {"intervals_s", {interval_s}}, {"window_s", window_s}, {"capacity", timeline_capacity(window_s)}};
            const py::dict answer = run_kernel_task(request, "switchinterval", py::dict());
            const py::handle run = answer["runs"].cast<py::list>()[0];
            const py::list own = run["stamps"];
            return {run["opened_ns"].cast<std::int64_t>(), {stamps_of(own[0]), stamps_of(own[1])}};
        }

        Result timeline_result(const options& o)
        {
            const std::vector<double> plan = o.intervals_s.empty() ? std::vector<double>{switch_interval_s()} : o.intervals_s;
            Result result;
            result.magic = "switchinterval";
            result.table.title = "GIL ownership over " + interval_label(o.duration_s) + ": two pure-Python threads taking turns";
            result.table.columns = {{"interval", "interval", "ms"}, {"slices", "turns", ""}, {"median", "median turn", "ms"}, {"p95", "p95 turn", "ms"}, {"max", "longest turn", "ms"}, {"double", "double turns", ""}, {"overlap", "max overlap", "ms"}, {"published", "published median turn", "ms"}};
            Chart chart;
            chart.kind = Chart::Kind::segments;
            chart.title = "Who held the GIL: each thread's turns";
            chart.x_title = "time (ms)";
            chart.lanes = timeline_lanes;
            nl::json timelines = nl::json::array();
            for (double interval_s : plan)
            {
                const gil_ownership ownership = gil_ownership_of(record_timeline(interval_s, o.duration_s));
                std::vector<double> lengths;
                nl::json turns = nl::json::array();
                for (const gil_slice& turn : ownership.turns)
                {
                    lengths.push_back(turn.length_ms());
                    turns.push_back({{"thread", turn.thread}, {"start_ms", turn.start_ms}, {"end_ms", turn.end_ms}});
                }
                const std::size_t band = chart.bands.size();
                chart.bands.push_back(interval_label(interval_s));
                nl::json lanes = nl::json::array();
                for (std::size_t thread = 0; thread < ownership.held.size(); ++thread)
                {
                    for (const gil_span& span : ownership.held[thread])
                        chart.segments.push_back({band, thread, span.start_ms, span.end_ms});
                    lanes.push_back(lane_json(ownership, thread));
                }
                const double interval_ms = interval_s * 1e3;
                const summary s = summarize(lengths);
                const double p95 = quantile(lengths, 0.95);
                const auto doubles = std::count_if(lengths.begin(), lengths.end(),
                                                   [&](double length) { return length > 1.5 * interval_ms; });
                // The published slice belongs to the default interval only.
                const bool at_default = std::fabs(interval_s - default_interval_s) < 1e-12;
                const double published_ms = python_side::published_for_magic("switchinterval").at("median_slice_ms").get<double>();
                const std::optional<double> figure = at_default ? std::make_optional(published_ms) : std::nullopt;
                result.table.rows.push_back({interval_ms, static_cast<std::int64_t>(lengths.size()), s.median, p95,
                                             s.max, static_cast<std::int64_t>(doubles), ownership.max_overlap_ms,
                                             number_or_blank(figure)});
                timelines.push_back({{"interval_ms", interval_ms}, {"slices", lengths}, {"median_slice_ms", number_or_null(s.median)}, {"p95_slice_ms", number_or_null(p95)}, {"max_slice_ms", number_or_null(s.max)}, {"double_slices", doubles}, {"turns", turns}, {"lanes", lanes}, {"max_overlap_ms", ownership.max_overlap_ms}, {"pause_threshold_ms", ownership.pause_threshold_ms}, {"published_median_slice_ms", number_or_null(figure)}});
            }
            result.table.notes.push_back("a turn runs from a thread's first clock stamp to the other thread's first; a "
                                         "double turn (over 1.5x the interval) is a hand-over that did not happen.");
            result.table.notes.push_back("the strips come from each thread's own stamps (a pause ends a bar); max overlap "
                                         "is the longest time both threads' bars overlapped: 0 while a GIL serialises them.");
            result.table.notes.push_back(python_side::published_for_magic("switchinterval").at("timeline_note").get<std::string>());
            result.table.notes.push_back("your switch interval is back at " + interval_label(switch_interval_s()) + ".");
            result.chart = chart;
            result.data = {{"mode", "timeline"}, {"duration_s", o.duration_s}, {"timelines", timelines}, {"python_version", py::module_::import("platform").attr("python_version")().cast<std::string>()}, {"restored_interval_ms", switch_interval_s() * 1e3}};
            return result;
        }

        Result show_or_set(const parsed_args& args)
        {
            Result result;
            result.magic = "switchinterval";
            result.table.title = "GIL switch interval";
            result.table.columns = {{"setting", "setting", ""}, {"value", "value", "ms"}, {"meaning", "meaning", ""}};
            const double before = switch_interval_s();
            result.data = {{"mode", "show"}, {"interval_s", before}, {"interval_ms", before * 1e3}};
            if (!args.positionals().empty())
            {
                const std::string& text = args.positionals()[0];
                double seconds = 0;
                try
                {
                    seconds = parse_duration(text);
                }
                catch (const usage_error&)
                {
                    throw usage_error("%switchinterval: bad interval '" + text.substr(0, 40) +
                                      "'; accepted: a duration such as 5ms, 0.2ms, 200us or seconds such as 0.001");
                }
                check_switch_interval(seconds, "%switchinterval");
                set_switch_interval(seconds);
                python_side::keep_switch_interval();  // setting it is this magic's purpose
                const double now = switch_interval_s();
                result.table.rows.push_back({"previous", before * 1e3, "what it was"});
                result.table.rows.push_back({"now", now * 1e3, "kept until you change it or restart the kernel"});
                result.data = {{"mode", "set"}, {"interval_s", now}, {"interval_ms", now * 1e3}, {"previous_ms", before * 1e3}};
            }
            else
            {
                result.table.rows.push_back({"current", before * 1e3,
                                             "a thread that wants the GIL asks the holder to drop it after this long"});
            }
            result.table.notes.push_back("CPython's default is 5 ms; %switchinterval --sweep 5ms,1ms,0.2ms measures what "
                                         "changing it does.");
            return result;
        }

        Result measure(const magic_call& call)
        {
            const options o = read_options(call.args);
            if (o.timeline)
            {
                if (!call.args.positionals().empty())
                    throw usage_error("%switchinterval: give a value to set or --timeline to measure, not both");
                return timeline_result(o);
            }
            if (o.intervals_s.empty())
            {
                for (const char* name : {"probe", "load", "every", "duration", "python"})
                {
                    if (call.args.has(name))
                        throw usage_error(std::string("%switchinterval: --") + name + " applies to --sweep");
                }
                return show_or_set(call.args);
            }
            if (!call.args.positionals().empty())
                throw usage_error("%switchinterval: give a value to set or --sweep to measure, not both");
            Result result = sweep_result(measure_all(o), o);
            add_interpreter_notes(result.table.notes, o.targets);
            return result;
        }
    }

    magic_definition switchinterval_magic()
    {
        return {"switchinterval", magic_kind::line, parser(), &measure};
    }
}
