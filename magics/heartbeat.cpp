// %%heartbeat: how late things ran while a cell ran. Two probes: an asyncio
// task in the cell's own event loop that wants to wake every N ms (the cell
// may `await`), and the native GIL probe that asks for the GIL every M ms.
// %heartbeat start / stop keeps the native probe across cells.
// Reads as: parse -> measure -> result.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include <pybind11/embed.h>
#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

#include "core/figures.hpp"
#include "core/python_helpers.hpp"
#include "core/gil_probe.hpp"
#include "core/registry.hpp"
#include "core/stats.hpp"

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

        struct options
        {
            double every_s;
            double probe_every_s;
            double slow_s;
            double warmup_s;
        };

        // ---- parse ----------------------------------------------------------

        arg_parser parser()
        {
            return arg_parser(
                "heartbeat",
                "Measure how late an event loop and the GIL let things run while a cell runs.\n\n"
                "  %%heartbeat            run the cell with two probes and report how late they ticked\n"
                "  %heartbeat start       start the native GIL probe and keep it across cells\n"
                "  %heartbeat stop        stop it and report the whole span\n\n"
                "The cell runs in its own asyncio event loop and may use top-level await (await handler()).\n"
                "A heartbeat task in that loop wants to wake every --every (10 ms): a gap much longer than\n"
                "that means something blocked the loop (time.sleep, a CPU-bound call, a synchronous driver).\n"
                "Callbacks that hold the loop longer than --slow (100 ms) are flagged, as asyncio's debug mode\n"
                "does (the flags are result fields, never stderr). The heartbeat starts --warmup (50 ms)\n"
                "before the cell, so the table has a baseline. Meanwhile a native C++ thread asks for the GIL\n"
                "every --probe-every (1 ms) and records how long each acquisition waited and held it: the\n"
                "share of time spent waiting for the GIL, its distribution and the longest wait.\n"
                "The result object (-o NAME) has rows, gaps(), gil_waits(), max_gap_ms, ticks, cell_s,\n"
                "gil_wait_ratio, slow_callbacks, to_dict() and to_dataframe().",
                {{"every", 'e', "DURATION", "how often the asyncio heartbeat wants to wake (default 10ms)"},
                 {"probe-every", 'p', "DURATION", "how often the native probe asks for the GIL (default 1ms)"},
                 {"slow", 0, "DURATION", "flag callbacks holding the loop longer than this (default 100ms)"},
                 {"warmup", 0, "DURATION", "heartbeat time before the cell starts (default 50ms)"},
                 output_option()},
                1, "start|stop: the line form, a native probe across cells");
        }

        options read_options(const parsed_args& args)
        {
            return {args.duration("every", 0.010, 0.001, 10.0), args.duration("probe-every", 0.001, 20e-6, 1.0),
                    args.duration("slow", 0.100, 0.001, 60.0), args.duration("warmup", 0.050, 0.0, 10.0)};
        }

        // ---- measure --------------------------------------------------------

        // The cell in a fresh event loop with a heartbeat task; asyncio's
        // debug-mode log records are captured, never printed. The loop is
        // cleaned up on every exit (interrupt included), like asyncio.run,
        // but SIGINT stays Python's KeyboardInterrupt so blocking cells stop.
        const char* runner_source = R"PY(
import ast, asyncio, inspect, logging, time

class _Capture(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []
    def emit(self, record):
        self.messages.append(record.getMessage())

def _cancel_all(loop):
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))

def run_cell(source, namespace, every, warmup, slow):
    code = compile(source, "<%%heartbeat cell>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    ticks = []
    times = {}

    async def heartbeat(stop):
        while not stop.is_set():
            await asyncio.sleep(every)
            ticks.append(time.perf_counter_ns())

    async def main():
        stop = asyncio.Event()
        times["start"] = time.perf_counter_ns()
        beat = asyncio.create_task(heartbeat(stop))
        await asyncio.sleep(warmup)
        times["cell_start"] = time.perf_counter_ns()
        try:
            outcome = eval(code, namespace)
            if inspect.iscoroutine(outcome):
                await outcome
        finally:
            times["cell_end"] = time.perf_counter_ns()
            stop.set()
        await beat

    logger = logging.getLogger("asyncio")
    saved = (logger.handlers[:], logger.propagate, logger.level)
    capture = _Capture()
    logger.handlers, logger.propagate = [capture], False
    logger.setLevel(logging.WARNING)
    loop = asyncio.new_event_loop()
    loop.set_debug(True)
    loop.slow_callback_duration = slow
    try:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(main())
    finally:
        try:
            _cancel_all(loop)
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
        finally:
            asyncio.set_event_loop(None)
            loop.close()
            logger.handlers, logger.propagate = saved[0], saved[1]
            logger.setLevel(saved[2])
    return {"ticks": ticks, "slow": capture.messages, **times}
)PY";


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

        // The one probe kept between `%heartbeat start` and `%heartbeat stop`.
        std::unique_ptr<gil_probe>& persistent_probe()
        {
            static std::unique_ptr<gil_probe> probe;
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
            {"under 0.1 ms", 0, 0.1}, {"0.1-1 ms", 0.1, 1}, {"1-10 ms", 1, 10}, {"10-100 ms", 10, 100},
            {"100 ms or more", 100, INFINITY}};

        nl::json gil_part(const gil_probe& probe, const gil_probe_summary& s, const std::vector<gil_sample>& samples,
                          double slow_ms, Result& result, Chart& chart)
        {
            std::vector<double> x, waits;
            for (const gil_sample& sample : samples)
            {
                x.push_back(sample.acquired_ns * 1e-6);
                waits.push_back(sample.wait_ms());
            }
            const auto over = std::count_if(waits.begin(), waits.end(), [&](double w) { return w > slow_ms; });
            result.table.rows.push_back({"GIL acquisitions (native probe)", probe.period_s() * 1e3,
                                         static_cast<std::int64_t>(s.acquisitions), s.wait_ms.median, s.wait_p95_ms,
                                         s.max_wait_ms, static_cast<std::int64_t>(over)});
            nl::json bands = nl::json::array();
            std::string band_text = "GIL waits:";
            for (const wait_band& band : wait_bands)
            {
                const auto count = std::count_if(waits.begin(), waits.end(),
                                                 [&](double w) { return w >= band.from_ms && w < band.to_ms; });
                bands.push_back({{"band", band.label}, {"count", count}});
                band_text += std::string(band.from_ms > 0 ? "," : "") + " " + band.label + ": " + std::to_string(count);
            }
            char ratio[200];
            std::snprintf(ratio, sizeof ratio, "GIL wait vs hold: the probe spent %.1f%% of the time waiting for the GIL "
                          "and %.3f%% holding it (its own cost).", s.wait_ratio() * 100, s.hold_ratio() * 100);
            result.table.notes.push_back(ratio);
            result.table.notes.push_back(band_text + ".");
            if (s.recorded < s.acquisitions)
            {
                result.table.notes.push_back("the first " + std::to_string(s.recorded) + " acquisitions are kept as samples; "
                                             "count, maximum and ratios cover all " + std::to_string(s.acquisitions) + ".");
            }
            chart.series.push_back(thin("GIL wait (native probe)", x, waits));
            nl::json part = to_json(s);
            part["every_ms"] = probe.period_s() * 1e3;
            const ChartSeries kept = thin("", x, waits, max_data_points);
            part["waits_ms"] = kept.y;
            part["acquired_at_ms"] = kept.x;
            part["waits_thinned"] = kept.x.size() < x.size();
            part["wait_distribution"] = bands;
            return part;
        }

        Result heartbeat_result(const cell_run& run, const gil_probe& probe, const options& o)
        {
            Result result;
            result.magic = "heartbeat";
            const summary gaps = summarize(run.gaps_ms);
            const double p95 = quantile(run.gaps_ms, 0.95);
            const double cell_s = (run.cell_end_ms - run.cell_start_ms) * 1e-3;
            const double slow_ms = o.slow_s * 1e3;
            result.table.title = "heartbeat: how late things ran while the cell ran (" + ms_text(cell_s * 1e3) + ")";
            result.table.columns = {{"probe", "probe", ""}, {"every", "wants to run every", "ms"}, {"count", "count", ""},
                                    {"median", "median gap / wait", "ms"}, {"p95", "p95", "ms"}, {"max", "max", "ms"},
                                    {"over_slow", "over " + ms_text(slow_ms), ""}};
            const auto over = std::count_if(run.gaps_ms.begin(), run.gaps_ms.end(), [&](double g) { return g > slow_ms; });
            result.table.rows.push_back({"event-loop ticks (asyncio task)", o.every_s * 1e3,
                                         static_cast<std::int64_t>(run.gaps_ms.size()), gaps.median, p95, gaps.max,
                                         static_cast<std::int64_t>(over)});
            Chart chart;
            chart.kind = Chart::Kind::lines;
            chart.title = "Gaps between heartbeat ticks and GIL waits over time";
            chart.x_title = "time since the heartbeat started (ms)";
            chart.y_title = "gap / wait (ms)";
            chart.series.push_back(thin("event-loop gap", run.tick_ms, run.gaps_ms));
            const gil_probe_summary s = probe.summarize();
            nl::json gil = gil_part(probe, s, probe.samples(), slow_ms, result, chart);
            chart.rules.push_back({"heartbeat every " + ms_text(o.every_s * 1e3), o.every_s * 1e3});
            chart.rules.push_back({"slow callback " + ms_text(slow_ms), slow_ms});
            result.chart = chart;
            result.table.notes.insert(result.table.notes.begin(),
                                      "gap: time between two ticks of the asyncio heartbeat (ideal: its period); wait: time "
                                      "the native probe waited for the GIL (ideal: 0).");
            for (const std::string& message : run.slow_callbacks)
            {
                result.table.notes.push_back("SLOW CALLBACK (as asyncio debug mode reports it): " + message.substr(0, 200));
            }
            result.table.notes.push_back("published (10 ms heartbeat, a 0.5 s handler; Python 3.9.6, Apple M1 Pro): "
                                         "time.sleep max gap 510.1 ms, 5 ticks; asyncio.sleep 11.4 ms, 51 ticks; "
                                         "asyncio.to_thread 30.7 ms, 46 ticks.");
            result.data = {{"mode", "cell"}, {"every_ms", o.every_s * 1e3}, {"slow_ms", slow_ms},
                           {"warmup_ms", o.warmup_s * 1e3}, {"ticks", run.gaps_ms.size()}, {"gaps_ms", run.gaps_ms},
                           {"tick_at_ms", run.tick_ms}, {"median_gap_ms", number_or_null(gaps.median)},
                           {"p95_gap_ms", number_or_null(p95)}, {"max_gap_ms", number_or_null(gaps.max)},
                           {"cell_s", cell_s}, {"cell_start_ms", run.cell_start_ms}, {"cell_end_ms", run.cell_end_ms},
                           {"slow_callbacks", run.slow_callbacks}, {"gil", gil},
                           {"gil_wait_ratio", s.wait_ratio()}, {"gil_hold_ratio", s.hold_ratio()},
                           {"max_gil_wait_ms", s.max_wait_ms}};
            return result;
        }

        Result span_result(const gil_probe& probe, const options& o)
        {
            Result result;
            result.magic = "heartbeat";
            const gil_probe_summary s = probe.summarize();
            result.table.title = "heartbeat: the GIL over " + ms_text(std::round(s.span_s * 1e4) / 10) +
                                 " between %heartbeat start and stop";
            result.table.columns = {{"probe", "probe", ""}, {"every", "wants to run every", "ms"}, {"count", "count", ""},
                                    {"median", "median wait", "ms"}, {"p95", "p95", "ms"}, {"max", "max", "ms"},
                                    {"over_slow", "over " + ms_text(o.slow_s * 1e3), ""}};
            Chart chart;
            chart.kind = Chart::Kind::lines;
            chart.title = "GIL waits over time";
            chart.x_title = "time since %heartbeat start (ms)";
            chart.y_title = "wait (ms)";
            nl::json gil = gil_part(probe, s, probe.samples(), o.slow_s * 1e3, result, chart);
            chart.rules.push_back({"slow " + ms_text(o.slow_s * 1e3), o.slow_s * 1e3});
            result.chart = chart;
            result.data = {{"mode", "span"}, {"span_s", s.span_s}, {"gil", gil}, {"gil_wait_ratio", s.wait_ratio()},
                           {"gil_hold_ratio", s.hold_ratio()}, {"max_gil_wait_ms", s.max_wait_ms}};
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
            std::unique_ptr<gil_probe>& probe = persistent_probe();
            if (action == "start")
            {
                if (probe) throw usage_error("%heartbeat: a probe is already running; %heartbeat stop first");
                probe = std::make_unique<gil_probe>(gil_probe::schedule::periodic, o.probe_every_s, probe_capacity);
                static bool stop_at_exit = false;
                if (!stop_at_exit)
                {
                    // A probe thread must not wait for the GIL while the interpreter finalises.
                    py::module_::import("atexit").attr("register")(py::cpp_function([] { persistent_probe().reset(); }));
                    stop_at_exit = true;
                }
                probe->start();
                return started_result(*probe);
            }
            if (action == "stop")
            {
                if (!probe) throw usage_error("%heartbeat: no probe is running; %heartbeat start first");
                probe->stop();
                std::unique_ptr<gil_probe> stopped = std::move(probe);
                return span_result(*stopped, o);
            }
            throw usage_error("%heartbeat: bad action '" + action.substr(0, 40) + "'; accepted: start, stop");
        }

        Result measure(const magic_call& call)
        {
            const options o = read_options(call.args);
            if (!call.cell) return run_line(call, o);
            if (!call.args.positionals().empty())
                throw usage_error("%%heartbeat takes no start/stop; those are for the line form %heartbeat");
            if (call.cell->find_first_not_of(" \t\r\n") == std::string::npos)
                throw usage_error("%%heartbeat needs a cell to run");
            try
            {
                py::module_ ast = py::module_::import("ast");
                py::module_::import("builtins").attr("compile")(*call.cell, "<%%heartbeat cell>", "exec",
                                                                "flags"_a = ast.attr("PyCF_ALLOW_TOP_LEVEL_AWAIT"));
            }
            catch (py::error_already_set& error)
            {
                if (!error.matches(PyExc_SyntaxError)) throw;
                throw usage_error(std::string("%%heartbeat: the cell is not valid Python: ") +
                                  py::str(error.value()).cast<std::string>());
            }

            gil_probe probe(gil_probe::schedule::periodic, o.probe_every_s, probe_capacity);
            probe.start();
            py::dict outcome = python_helpers(runner_source)["run_cell"](*call.cell, call.user_ns, o.every_s, o.warmup_s, o.slow_s);
            probe.stop();

            const std::int64_t origin = steady_ns(probe.started_at());
            auto ms = [origin](py::handle ns) { return (ns.cast<std::int64_t>() - origin) * 1e-6; };
            cell_run run;
            run.start_ms = ms(outcome["start"]);
            run.cell_start_ms = ms(outcome["cell_start"]);
            run.cell_end_ms = ms(outcome["cell_end"]);
            double last = run.start_ms;
            for (py::handle tick : outcome["ticks"].cast<py::list>())
            {
                run.tick_ms.push_back(ms(tick));
                run.gaps_ms.push_back(run.tick_ms.back() - last);
                last = run.tick_ms.back();
            }
            run.slow_callbacks = outcome["slow"].cast<std::vector<std::string>>();
            return heartbeat_result(run, probe, o);
        }
    }

    // The result object of %heartbeat: the raw series besides the table.
    struct heartbeat_result_object : Result
    {
        explicit heartbeat_result_object(Result r) : Result(std::move(r)) {}
    };

    void bind_heartbeat_result(py::module_& m)
    {
        py::class_<heartbeat_result_object, Result>(m, "HeartbeatResult")
            .def("gaps", [](const heartbeat_result_object& r)
                 { return py::cast(r.data.value("gaps_ms", nl::json::array())); },
                 "gaps between heartbeat ticks in ms, in order")
            .def("gil_waits", [](const heartbeat_result_object& r)
                 { return py::cast(r.data.contains("gil") ? r.data["gil"]["waits_ms"] : nl::json::array()); },
                 "how long each native GIL acquisition waited, in ms, in order");
    }

    magic_definition heartbeat_magic()
    {
        return {"heartbeat", magic_kind::line_cell, parser(), &measure,
                [](Result r) { return py::cast(heartbeat_result_object(std::move(r))); }, &bind_heartbeat_result};
    }
}
