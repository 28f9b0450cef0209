// %%heartbeat: how late things ran while a cell ran. Two probes: an asyncio
// task in the cell's own event loop that wants to wake every N ms (the cell
// may `await`), and the native GIL probe that asks for the GIL every M ms.
// %heartbeat start / stop keeps the native probe across cells. With --python
// the cell also runs in child interpreters, where a Python probe thread
// stands in for the native one. Reads as: parse -> measure (runners/
// task_heartbeat.py through run_task, in the kernel or a child) -> result.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

#include "workers/child_interpreter.hpp"
#include "render/figures.hpp"
#include "instruments/gil_probe.hpp"
#include "render/number_format.hpp"
#include "framework/python_side.hpp"
#include "framework/progress.hpp"
#include "framework/registry.hpp"
#include "framework/runner.hpp"
#include "framework/gil_watch_tool.hpp"
#include "framework/kept_instrument.hpp"
#include "base/stats.hpp"
#include "instruments/python_probe.hpp"
#include "manual.hpp"
#include "instruments/gil_watch.hpp"
#include "heartbeat_blame.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        constexpr std::size_t max_chart_points = 1500;
        // Raw series kept in the JSON payload (a notebook output) beyond which
        // they are thinned the same way as the chart.
        constexpr std::size_t max_data_points = 20000;
        // A cell's probe keeps this many samples (about 4 minutes at 1 ms);
        // later acquisitions still count in the totals, maximum and histogram.
        constexpr std::size_t probe_capacity = 1 << 18;
        // A child sends its probe's samples as JSON: past this many, an even subsample.
        constexpr std::size_t child_probe_capacity = 50000;
        // runners/student_code.compile_cell's file name for the cell of %%heartbeat.
        const char* heartbeat_cell_filename = "<%%heartbeat cell>";

        struct options
        {
            double every_s;
            double probe_every_s;
            double slow_s;
            double warmup_s;
            std::vector<measurement_target> targets;
            published_figures published;
            bool blame = true;
        };

        // ---- parse ----------------------------------------------------------

        arg_parser parser()
        {
            return manual_parser(
                "heartbeat",
                {{"every", 'e', "DURATION", "how often the asyncio heartbeat wants to wake (default 10ms)"},
                 {"probe-every", 'p', "DURATION", "how often the native probe asks for the GIL (default 10ms, the heartbeat's period)"},
                 {"slow", 0, "DURATION", "flag callbacks holding the loop longer than this (default 100ms)"},
                 {"warmup", 0, "DURATION", "heartbeat time before the cell starts (default 50ms)"},
                 no_published_option(),
                 {"no-blame", 0, "", "do not follow the loop's thread (no blame table)"},
                 python_option(),
                 output_option()},
                {},
                1,
                "start|stop: the line form, a native probe across cells");
        }

        options read_options(const parsed_args& args)
        {
            return {args.duration("every", 0.010, 0.001, 10.0), args.duration("probe-every", 0.010, 20e-6, 1.0), args.duration("slow", 0.100, 0.001, 60.0), args.duration("warmup", 0.050, 0.0, 10.0), {}, read_published_choice(args), !args.has("no-blame")};
        }

        // ---- measure --------------------------------------------------------

        std::int64_t steady_ns(monotonic::time_point t)
        {
            return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
        }

        struct cell_run
        {
            std::vector<double> tick_ms;  // since the probe started
            std::vector<double> gaps_ms;
            double start_ms = 0;
            double cell_start_ms = 0;
            double cell_end_ms = 0;
            std::vector<std::string> slow_callbacks;
        };

        // Tick and cell times in ns on one clock, `origin` the probe's start.
        cell_run make_cell_run(std::int64_t origin, std::int64_t start, std::int64_t cell_start, std::int64_t cell_end,
                               const std::vector<std::int64_t>& ticks, std::vector<std::string> slow_callbacks)
        {
            auto ms = [origin](std::int64_t ns) { return (ns - origin) * 1e-6; };
            cell_run run;
            run.start_ms = ms(start);
            run.cell_start_ms = ms(cell_start);
            run.cell_end_ms = ms(cell_end);
            double last = run.start_ms;
            for (std::int64_t tick : ticks)
            {
                run.tick_ms.push_back(ms(tick));
                run.gaps_ms.push_back(run.tick_ms.back() - last);
                last = run.tick_ms.back();
            }
            run.slow_callbacks = std::move(slow_callbacks);
            return run;
        }

        // What one GIL probe recorded: the kernel's native one or a child's Python thread.
        struct probe_record
        {
            bool native = true;
            double every_s = 0;
            std::vector<gil_sample> samples;
            gil_probe_summary summary;
        };

        probe_record native_record(const gil_probe& probe)
        {
            return {true, probe.period_s(), probe.samples(), probe.summarize()};
        }

        // One interpreter's run of the cell.
        struct heartbeat_run
        {
            measurement_target target;
            std::string label;
            cell_run cell;
            probe_record gil;
            // The kernel's run with blame: the watch that followed the loop's thread.
            std::shared_ptr<const gil_watch_record> watch = nullptr;
            double watch_offset_ms = 0;  // its sampler's start on the probe's clock
        };

        const char* python_probe_limit =
            "a Python thread stands in for the native probe in a child interpreter: it stamps the clock only once it "
            "holds the GIL again, so 'asked' is when it wanted to wake and each wait includes the OS wake-up and its "
            "own stamping (about 0.1 ms resolution); the hold time is its stamping only.";

        // The one probe kept between `%heartbeat start` and `%heartbeat stop`.
        kept_instrument<gil_probe>& persistent_probe()
        {
            static kept_instrument<gil_probe> probe;
            return probe;
        }

        // ---- result ---------------------------------------------------------

        // At most max_chart_points points: the largest value of each run of neighbours.
        ChartSeries thin(const std::string& name, const std::vector<double>& x, const std::vector<double>& y,
                         std::size_t max_points = max_chart_points)
        {
            ChartSeries series{name, {}, {}};
            const std::size_t step = std::max<std::size_t>(1, (x.size() + max_points - 1) / max_points);
            for (std::size_t i = 0; i < x.size(); i += step)
            {
                const std::size_t end = std::min(x.size(), i + step);
                const auto top = std::max_element(y.begin() + i, y.begin() + end) - y.begin();
                series.x.push_back(x[top]);
                series.y.push_back(y[top]);
            }
            return series;
        }

        struct wait_band
        {
            const char* label;
            double from_ms;
            double to_ms;
        };
        const std::vector<wait_band> wait_bands = {
            {"under 0.1 ms", 0, 0.1}, {"0.1-1 ms", 0.1, 1}, {"1-10 ms", 1, 10}, {"10-100 ms", 10, 100}, {"100 ms or more", 100, INFINITY}};

        std::string probe_name(const probe_record& gil, bool gil_enabled)
        {
            if (gil.native) return "GIL acquisitions (native probe)";
            return gil_enabled ? "GIL acquisitions (Python-thread probe)" : "wake-ups, no GIL (Python-thread probe)";
        }

        // The probe's row, notes, chart series and JSON; `prefix` names the interpreter when there are several.
        nl::json gil_part(const probe_record& gil, const std::string& name, const std::string& prefix,
                          const std::vector<Cell>& lead, double slow_ms, Result& result, Chart& chart)
        {
            const gil_probe_summary& s = gil.summary;
            const std::vector<gil_sample>& samples = gil.samples;
            std::vector<double> x, waits;
            for (const gil_sample& sample : samples)
            {
                x.push_back(sample.acquired_ns * 1e-6);
                waits.push_back(sample.wait_ms());
            }
            const auto over = std::count_if(waits.begin(), waits.end(), [&](double w) { return w > slow_ms; });
            std::vector<Cell> row = lead;
            row.insert(row.end(), {name, gil.every_s * 1e3, static_cast<std::int64_t>(s.acquisitions), s.wait_ms.median,
                                   s.wait_p95_ms, s.max_wait_ms, static_cast<std::int64_t>(over)});
            result.table.rows.push_back(row);
            nl::json bands = nl::json::array();
            std::string band_text = prefix + "GIL waits:";
            for (const wait_band& band : wait_bands)
            {
                const auto count = std::count_if(waits.begin(), waits.end(),
                                                 [&](double w) { return w >= band.from_ms && w < band.to_ms; });
                bands.push_back({{"band", band.label}, {"count", count}});
                band_text += std::string(band.from_ms > 0 ? "," : "") + " " + band.label + ": " + grouped(count);
            }
            char ratio[200];
            if (gil.native)
                std::snprintf(ratio, sizeof ratio, "GIL wait vs hold: the probe spent %.1f%% of the time waiting for the GIL "
                                                   "and %.3f%% holding it (its own cost).",
                              s.wait_ratio() * 100, s.hold_ratio() * 100);
            else
                std::snprintf(ratio, sizeof ratio, "wait vs run: the Python probe spent %.1f%% of the time between wanting "
                                                   "to run and running (the OS wake-up included) and %.3f%% stamping the clock.",
                              s.wait_ratio() * 100, s.hold_ratio() * 100);
            result.table.notes.push_back(prefix + ratio);
            result.table.notes.push_back(band_text + ".");
            if (s.recorded < s.acquisitions)
            {
                result.table.notes.push_back(prefix + grouped(s.recorded) + " of " + count_text(s.acquisitions, "acquisition") +
                                             " are kept as samples; count, maximum and ratios cover all.");
            }
            const std::string series = gil.native ? "GIL wait (native probe)" : "GIL wait (Python-thread probe)";
            chart.series.push_back(thin(prefix.empty() ? series : series + ", " + prefix.substr(0, prefix.size() - 2), x, waits));
            nl::json part = to_json(s);
            part["every_ms"] = gil.every_s * 1e3;
            part["probe"] = gil.native ? "native" : "python thread";
            const ChartSeries kept = thin("", x, waits, max_data_points);
            part["waits_ms"] = kept.y;
            part["acquired_at_ms"] = kept.x;
            part["waits_thinned"] = kept.x.size() < x.size();
            part["wait_distribution"] = bands;
            return part;
        }

        std::vector<Column> heartbeat_columns(bool per_interpreter, double slow_ms)
        {
            std::vector<Column> columns;
            if (per_interpreter) columns = {{"python", "python", ""}, {"cell", "cell", "s"}};
            columns.insert(columns.end(), {{"probe", "probe", ""}, {"every", "wants to run every", "ms"}, {"count", "count", ""}, {"median", "median gap / wait", "ms"}, {"p95", "p95", "ms"}, {"max", "max", "ms"}, {"over_slow", "over " + ms_text(slow_ms), ""}});
            return columns;
        }

        // The heartbeat's figures of one run, the table's and the JSON's.
        struct tick_figures
        {
            summary gaps;
            double p95;
            double cell_s;
        };

        tick_figures ticks_of(const cell_run& cell)
        {
            return {summarize(cell.gaps_ms), quantile(cell.gaps_ms, 0.95), (cell.cell_end_ms - cell.cell_start_ms) * 1e-3};
        }

        Row tick_row(const cell_run& cell, const tick_figures& f, const std::vector<Cell>& lead, const options& o)
        {
            const double slow_ms = o.slow_s * 1e3;
            const auto over = std::count_if(cell.gaps_ms.begin(), cell.gaps_ms.end(), [&](double g) { return g > slow_ms; });
            Row row = lead;
            row.insert(row.end(), {"event-loop ticks (asyncio task)", o.every_s * 1e3,
                                   static_cast<std::int64_t>(cell.gaps_ms.size()), f.gaps.median, f.p95, f.gaps.max,
                                   static_cast<std::int64_t>(over)});
            return row;
        }

        nl::json interpreter_record(const heartbeat_run& run, const tick_figures& f, const nl::json& gil)
        {
            const cell_run& cell = run.cell;
            const gil_probe_summary& s = run.gil.summary;
            return {{"python", run.label}, {"requested", run.target.requested}, {"kernel", run.target.is_kernel}, {"interpreter", run.target.info.raw}, {"ticks", cell.gaps_ms.size()}, {"gaps_ms", cell.gaps_ms}, {"tick_at_ms", cell.tick_ms}, {"median_gap_ms", number_or_null(f.gaps.median)}, {"p95_gap_ms", number_or_null(f.p95)}, {"max_gap_ms", number_or_null(f.gaps.max)}, {"cell_s", f.cell_s}, {"cell_start_ms", cell.cell_start_ms}, {"cell_end_ms", cell.cell_end_ms}, {"slow_callbacks", cell.slow_callbacks}, {"gil", gil}, {"gil_wait_ratio", s.wait_ratio()}, {"gil_hold_ratio", s.hold_ratio()}, {"max_gil_wait_ms", s.max_wait_ms}, {"gil_probe", run.gil.native ? "native" : "python thread"}, {"gil_probe_limit", run.gil.native ? nl::json(nullptr) : nl::json(python_probe_limit)}};
        }

        Result heartbeat_result(const std::vector<heartbeat_run>& all, const options& o)
        {
            Result result;
            result.magic = "heartbeat";
            const double slow_ms = o.slow_s * 1e3;
            // The kernel alone: the table as it always was; otherwise rows per interpreter.
            const bool per_interpreter = all.size() > 1 || !all.front().target.is_kernel;
            const cell_run& first = all.front().cell;
            result.table.title = per_interpreter
                                     ? "heartbeat: how late things ran while the cell ran, in " + count_text(all.size(), "interpreter")
                                     : "heartbeat: how late things ran while the cell ran (" + ms_text((first.cell_end_ms - first.cell_start_ms)) + ")";
            result.table.columns = heartbeat_columns(per_interpreter, slow_ms);
            Chart chart = Chart::step_lines("Gaps between heartbeat ticks and GIL waits over time",
                                            "time since the heartbeat started (ms)", "gap / wait (ms)");
            result.table.notes.push_back("gap: time between two ticks of the asyncio heartbeat (ideal: its period); wait: time "
                                         "the GIL probe waited for the GIL (ideal: 0).");
            nl::json interpreters = nl::json::array();
            for (const heartbeat_run& run : all)
            {
                const std::string prefix = per_interpreter ? run.label + ": " : "";
                const tick_figures f = ticks_of(run.cell);
                std::vector<Cell> lead;
                if (per_interpreter) lead = {run.label, f.cell_s};
                result.table.rows.push_back(tick_row(run.cell, f, lead, o));
                chart.series.push_back(thin(per_interpreter ? "event-loop gap, " + run.label : "event-loop gap", run.cell.tick_ms,
                                            run.cell.gaps_ms));
                const nl::json gil = gil_part(run.gil, probe_name(run.gil, run.target.info.gil_enabled), prefix, lead, slow_ms,
                                              result, chart);
                for (const std::string& message : run.cell.slow_callbacks)
                    result.table.notes.push_back(prefix + "SLOW CALLBACK (as asyncio debug mode reports it): " + message.substr(0, 200));
                interpreters.push_back(interpreter_record(run, f, gil));
            }
            if (std::any_of(all.begin(), all.end(), [](const heartbeat_run& run) { return !run.gil.native; }))
                result.table.notes.push_back(std::string("child interpreters: ") + python_probe_limit);
            chart.rules.push_back({"heartbeat every " + ms_text(o.every_s * 1e3), o.every_s * 1e3});
            chart.rules.push_back({"slow callback " + ms_text(slow_ms), slow_ms});
            o.published.add_to("heartbeat", result.table.notes, chart);
            result.chart = chart;
            // The first interpreter's figures at the top level, every interpreter's under "interpreters".
            result.data = interpreters[0];
            for (const char* key : {"python", "requested", "kernel", "interpreter"}) result.data.erase(key);
            result.data.update({{"mode", "cell"}, {"every_ms", o.every_s * 1e3}, {"slow_ms", slow_ms}, {"warmup_ms", o.warmup_s * 1e3}, {"interpreters", interpreters}});
            return result;
        }

        Result span_result(const gil_probe& probe, const options& o)
        {
            Result result;
            result.magic = "heartbeat";
            const probe_record gil = native_record(probe);
            const gil_probe_summary& s = gil.summary;
            result.table.title = "heartbeat: the GIL over " + ms_text(std::round(s.span_s * 1e4) / 10) +
                                 " between %heartbeat start and stop";
            result.table.columns = {{"probe", "probe", ""}, {"every", "wants to run every", "ms"}, {"count", "count", ""}, {"median", "median wait", "ms"}, {"p95", "p95", "ms"}, {"max", "max", "ms"}, {"over_slow", "over " + ms_text(o.slow_s * 1e3), ""}};
            Chart chart = Chart::step_lines("GIL waits over time", "time since %heartbeat start (ms)", "wait (ms)");
            nl::json part = gil_part(gil, probe_name(gil, true), "", {}, o.slow_s * 1e3, result, chart);
            chart.rules.push_back({"slow " + ms_text(o.slow_s * 1e3), o.slow_s * 1e3});
            result.chart = chart;
            result.data = {{"mode", "span"}, {"span_s", s.span_s}, {"gil", part}, {"gil_wait_ratio", s.wait_ratio()}, {"gil_hold_ratio", s.hold_ratio()}, {"max_gil_wait_ms", s.max_wait_ms}};
            return result;
        }

        Result started_result(const gil_probe& probe)
        {
            Result result;
            result.magic = "heartbeat";
            result.table.title = "heartbeat: native GIL probe running";
            result.table.columns = {{"probe", "probe", ""}, {"every", "asks for the GIL every", "ms"}};
            result.table.rows.push_back({"GIL acquisitions (native probe)", probe.period_s() * 1e3});
            result.table.notes.push_back("it records in memory only; %heartbeat stop reports the whole span.");
            result.data = {{"mode", "started"}, {"every_ms", probe.period_s() * 1e3}};
            return result;
        }

        Result run_line(const magic_call& call, const options& o)
        {
            if (call.args.positionals().empty())
                throw usage_error("%heartbeat needs start or stop (or use %%heartbeat on a cell)");
            const std::string& action = call.args.positionals()[0];
            if (call.args.has("python"))
                throw usage_error("%heartbeat " + action.substr(0, 40) + ": --python applies to %%heartbeat on a cell; "
                                                                         "start/stop keep this kernel's native probe across cells");
            kept_instrument<gil_probe>& probe = persistent_probe();
            if (action == "start")
            {
                if (probe.running()) throw usage_error("%heartbeat: a probe is already running; %heartbeat stop first");
                gil_probe& started = probe.keep(std::make_unique<gil_probe>(gil_probe::schedule::periodic, o.probe_every_s, probe_capacity));
                started.start();
                return started_result(started);
            }
            if (action == "stop")
            {
                if (!probe.running()) throw usage_error("%heartbeat: no probe is running; %heartbeat start first");
                probe.running()->stop();
                std::unique_ptr<gil_probe> stopped = probe.take();
                return span_result(*stopped, o);
            }
            throw usage_error("%heartbeat: bad action '" + action.substr(0, 40) + "'; accepted: start, stop");
        }

        nl::json request(const magic_call& call, const options& o, std::size_t capacity)
        {
            return {{"task", "heartbeat"}, {"cell", *call.cell}, {"every_s", o.every_s}, {"warmup_s", o.warmup_s}, {"slow_s", o.slow_s}, {"probe_every_s", o.probe_every_s}, {"capacity", capacity}, {"blame", o.blame}};
        }

        // The runner's times, in ns since `origin`.
        cell_run cell_of(const nl::json& times, std::int64_t origin)
        {
            return make_cell_run(origin, times.at("start_ns").get<std::int64_t>(), times.at("cell_start_ns").get<std::int64_t>(),
                                 times.at("cell_end_ns").get<std::int64_t>(), times.at("ticks_ns").get<std::vector<std::int64_t>>(),
                                 times.at("slow").get<std::vector<std::string>>());
        }

        // One interpreter's turn through runners/task_heartbeat.py, as every magic's: in the kernel
        // the cell runs in the user's namespace beside the native probe (tools.probe) and, with blame,
        // the sampler following the loop's thread (tools.watch), both handed back to be read here;
        // in a child beside a Python probe thread, whose report comes back with the times.
        heartbeat_run run_turn(const magic_call& call, const interpreter_turn& turn, const options& o)
        {
            heartbeat_run run{turn.target, turn.label, {}, {}};
            if (!turn.target.is_kernel)
            {
                const nl::json answer = run_task(turn.target, request(call, o, child_probe_capacity), "heartbeat");
                python_probe_record probe = read_python_probe(answer.at("probe"));
                run.cell = cell_of(answer.at("cell"), 0);
                run.gil = {false, probe.every_s, std::move(probe.samples), probe.summary};
                return run;
            }
            std::optional<progress_ticker> ticker(std::in_place, "heartbeat", "running the cell");
            const py::dict answer = run_kernel_task(request(call, o, probe_capacity), "heartbeat", call.user_ns);
            ticker.reset();
            const gil_probe& probe = answer["probe"].cast<const gil_probe&>();
            if (!answer["watch"].is_none())
            {
                run.watch = std::make_shared<const gil_watch_record>(watch_record(answer["watch"]));
                run.watch_offset_ms = (steady_ns(run.watch->sampler_started) - steady_ns(probe.started_at())) * 1e-6;
            }
            run.cell = cell_of(py::cast<nl::json>(answer["cell"]), steady_ns(probe.started_at()));
            run.gil = native_record(probe);
            return run;
        }

        Result measure(const magic_call& call)
        {
            options o = read_options(call.args);
            if (!call.cell) return run_line(call, o);
            if (!call.args.positionals().empty())
                throw usage_error("%%heartbeat takes no start/stop; those are for the line form %heartbeat");
            if (call.cell->find_first_not_of(" \t\r\n") == std::string::npos)
                throw usage_error("%%heartbeat needs a cell to run");
            o.targets = resolve_interpreters(call.args.text("python", ""), "heartbeat");
            std::vector<heartbeat_run> all;
            for_each_interpreter(o.targets, nullptr, [&](const interpreter_turn& turn) {
                all.push_back(run_turn(call, turn, o));
            });
            Result result = heartbeat_result(all, o);
            add_interpreter_notes(result.table.notes, o.targets);
            for (const heartbeat_run& run : all)
                if (run.watch)
                    add_heartbeat_blame(result, *run.watch, {*call.cell, heartbeat_cell_filename, false},
                                        {run.cell.tick_ms, run.cell.start_ms, o.every_s * 1e3, run.watch_offset_ms});
            return result;
        }
    }

    magic_definition heartbeat_magic()
    {
        return {"heartbeat", magic_kind::line_cell, parser(), &measure};
    }
}
