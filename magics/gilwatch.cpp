// %%gilwatch: who held the GIL, thread by thread, while a cell ran. A native
// sampler reads CPython 3.11's GIL state without taking the GIL (gil_watch);
// holders are mapped to Python threads through a registry that proves each
// thread-state pointer's owner (thread_registry.hpp). The cell runs through
// runners/task_gilwatch.py, handed the sampler as a native tool (tools.watch);
// this file parses and presents. %gilwatch start / stop keeps one watch across
// cells, as %heartbeat start / stop does its probe.
// Reads as: parse -> measure (the runner, or the line form's watch) -> result.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

#include "render/figures.hpp"
#include "instruments/gil_watch.hpp"
#include "framework/python_side.hpp"
#include "render/number_format.hpp"
#include "framework/progress.hpp"
#include "framework/registry.hpp"
#include "framework/runner.hpp"
#include "framework/gil_watch_tool.hpp"
#include "framework/kept_instrument.hpp"
#include "base/stats.hpp"
#include "instruments/switch_interval.hpp"
#include "manual.hpp"
#include "gilwatch_blame.hpp"
#include "gilwatch_exact.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        // The chart draws at most this many bars: past it, a lane's turns closer
        // than a pixel's worth of time merge into one bar.
        constexpr std::size_t max_chart_segments = 4000;
        // The JSON keeps each thread's turns up to this many, merged the same way past it.
        constexpr std::size_t max_data_segments = 20000;

        const char* free_lane = "(nobody: GIL free)";
        // runners/student_code.compile_cell's file name for the cell of %%gilwatch.
        const char* watched_cell_filename = "<%%gilwatch cell>";
        const char* unattributed_lane = "(unattributed)";

        // ---- parse ----------------------------------------------------------

        arg_parser parser()
        {
            return manual_parser(
                "gilwatch",
                {{"period", 'p', "DURATION", "time between two samples of the GIL state (10us to 10ms; default the switch "
                                             "interval / 5, within 50us to 1ms)"},
                 {"no-blame", 0, "", "do not read the holders' frames (no blame table)"},
                 exact_option(),
                 python_option(),
                 output_option()},
                {}, 1, "start|stop: the line form, one watch across cells");
        }

        double read_period(const parsed_args& args)
        {
            return args.duration("period", default_watch_period_s(), 10e-6, 10e-3);
        }

        // ---- measure --------------------------------------------------------

        // The one watch kept between `%gilwatch start` and `%gilwatch stop`.
        kept_instrument<gil_watch>& persistent_watch()
        {
            static kept_instrument<gil_watch> watch;
            return watch;
        }

        // The cell runs through runners/task_gilwatch.py, in the user's namespace inside the
        // sampler's watch (tools.watch); the runner hands the finished watch back.
        gil_watch_record watch_cell(const magic_call& call, double period_s, bool blame)
        {
            progress_ticker ticker("gilwatch", "watching the cell");
            const nl::json request = {{"task", "gilwatch"}, {"cell", *call.cell}, {"period_s", period_s}, {"blame", blame}};
            const py::dict answer = run_kernel_task(request, "gilwatch", call.user_ns);
            return watch_record(answer["watch"]);
        }

        // ---- result ---------------------------------------------------------

        struct thread_row
        {
            std::string name;
            const known_thread* entry;  // null for the pseudo-lanes
            const holder_figures* figures;
            double waiting_s;  // NaN: not measured
        };

        nl::json segments_json(const std::vector<gil_segment>& segments)
        {
            nl::json out = nl::json::array();
            for (const gil_segment& s : segments) out.push_back({{"start_ms", s.start_ms}, {"end_ms", s.end_ms}});
            return out;
        }

        std::string percent(double share)
        {
            char text[32];
            std::snprintf(text, sizeof text, "%.1f%%", share * 100);
            return text;
        }

        // "3.11.2": the running interpreter's version, as platform.python_version() gives it.
        std::string python_version()
        {
            const std::string full = Py_GetVersion();
            return full.substr(0, full.find(' '));
        }

        // The window a watch covers: shares are of its wall time.
        struct watch_window
        {
            double s;
            double share(double seconds) const { return s > 0 ? seconds / s : 0.0; }
        };

        // Threads by time held, most first, then the unattributed pseudo-lane.
        std::vector<thread_row> ordered_threads(const gil_watch_record& w)
        {
            const thread_registry& registry = *w.registry;
            std::vector<thread_row> rows;
            for (std::size_t i = 0; i < registry.threads().size(); ++i)
                // A native thread's state that held nothing is not one of the watched threads.
                if (!registry.threads()[i].seen_only || w.holders.threads[i].held_s > 0)
                    rows.push_back({registry.name(i), &registry.threads()[i], &w.holders.threads[i], w.waiting_s[i]});
            std::stable_sort(rows.begin(), rows.end(),
                             [](const thread_row& a, const thread_row& b) { return a.figures->held_s > b.figures->held_s; });
            if (w.holders.unattributed.held_s > 0)
                rows.push_back({unattributed_lane, nullptr, &w.holders.unattributed, std::nan("")});
            return rows;
        }

        std::vector<double> turn_lengths(const holder_figures& f)
        {
            std::vector<double> lengths;
            for (const gil_segment& turn : f.turns) lengths.push_back(turn.end_ms - turn.start_ms);
            return lengths;
        }

        std::vector<Column> watch_columns()
        {
            return {{"thread", "thread", ""}, {"ident", "ident", "", true}, {"held", "held the GIL", "s"}, {"share", "share of wall time", "%"}, {"turns", "turns", ""}, {"median_turn", "median turn", "ms"}, {"longest_turn", "longest turn", "ms"}, {"waiting", "waiting for it", "s"}};
        }

        Row thread_table_row(const thread_row& row, const watch_window& window)
        {
            const holder_figures& f = *row.figures;
            const std::vector<double> lengths = turn_lengths(f);
            Row out = {row.name, Cell{}, f.held_s, window.share(f.held_s) * 100,
                       static_cast<std::int64_t>(lengths.size()), Cell{}, Cell{}, Cell{}};
            if (row.entry) out[1] = static_cast<std::int64_t>(row.entry->ident);
            if (!lengths.empty())
            {
                const summary s = summarize(lengths);
                out[5] = s.median;
                out[6] = s.max;
            }
            if (std::isfinite(row.waiting_s)) out[7] = row.waiting_s;
            return out;
        }

        nl::json thread_record(const thread_row& row, const watch_window& window)
        {
            const holder_figures& f = *row.figures;
            const std::vector<double> lengths = turn_lengths(f);
            const summary s = summarize(lengths);
            return {{"name", row.name}, {"ident", row.entry->ident}, {"native_id", row.entry->native_id}, {"held_s", f.held_s}, {"held_share", window.share(f.held_s)}, {"turns", static_cast<std::int64_t>(lengths.size())}, {"median_turn_ms", lengths.empty() ? nl::json(nullptr) : nl::json(s.median)}, {"longest_turn_ms", lengths.empty() ? nl::json(nullptr) : nl::json(s.max)}, {"waiting_s", number_or_null(row.waiting_s)}, {"waiting_share", number_or_null(window.share(row.waiting_s))}, {"started_in_window", !row.entry->alive_at_start}, {"alive_at_end", row.entry->alive_at_end}};
        }

        // One lane per thread that held the GIL, a bar per turn; a lane gets its
        // share of the chart's bars by its share of the turns.
        Chart watch_chart(const std::vector<thread_row>& rows, const std::string& mode, double window_ms)
        {
            Chart chart;
            chart.kind = Chart::Kind::segments;
            chart.title = "Who held the GIL: a bar per turn";
            chart.x_title = mode == "span" ? "time since %gilwatch start (ms)" : "time since the cell started (ms)";
            std::size_t drawn_turns = 0;
            for (const thread_row& row : rows) drawn_turns += row.figures->turns.size();
            for (const thread_row& row : rows)
            {
                const std::vector<gil_segment>& turns = row.figures->turns;
                if (turns.empty()) continue;
                const std::size_t lane = chart.lanes.size();
                chart.lanes.push_back(row.name);
                const std::size_t budget =
                    std::max<std::size_t>(50, max_chart_segments * turns.size() / std::max<std::size_t>(1, drawn_turns));
                for (const gil_segment& seg : at_most_turns(turns, budget, window_ms))
                    chart.segments.push_back({0, lane, seg.start_ms, seg.end_ms});
            }
            return chart;
        }

        nl::json lane_record(const thread_row& row, double window_ms)
        {
            const std::vector<gil_segment>& turns = row.figures->turns;
            const std::vector<gil_segment> kept = at_most_turns(turns, max_data_segments, window_ms);
            return {{"name", row.name}, {"ident", row.entry ? nl::json(row.entry->ident) : nl::json(nullptr)}, {"segments", segments_json(kept)}, {"merged", kept.size() < turns.size()}};
        }

        bool waits_measured(const gil_watch_record& w)
        {
            return std::any_of(w.waiting_s.begin(), w.waiting_s.end(), [](double b) { return std::isfinite(b); });
        }

        std::string sampling_note(const gil_watch_record& w)
        {
            char line[400];
            std::snprintf(line, sizeof line,
                          "sampled every %.0f us on average (achieved: %.0f us, longest gap %.2f ms, %s, %s); a "
                          "sample's state is credited with the time to the next one, so turn lengths are whole gaps.",
                          w.period_s * 1e6, w.mean_gap_s * 1e6, w.max_gap_s * 1e3,
                          count_text(static_cast<std::int64_t>(w.holders.samples), "sample").c_str(),
                          w.sampler_realtime ? "at real-time priority"
                                             : "at normal priority: on a busy machine it wakes late, and held "
                                               "shares of many short turns read low");
            return line;
        }

        std::vector<std::string> watch_notes(const gil_watch_record& w, const watch_window& window)
        {
            const gil_holders& h = w.holders;
            std::vector<std::string> notes;
            char line[400];
            notes.push_back("hand-overs: " + grouped(static_cast<std::int64_t>(w.handovers)) +
                            " (CPython's switch counter, exact); " + grouped(static_cast<std::int64_t>(h.missed_turns())) +
                            " of them went to turns shorter than the gap between two samples, which no "
                            "sample saw and no thread's turns count.");
            std::snprintf(line, sizeof line, "GIL free %s of the time; a waiting thread had asked the holder to drop it %s of the time.",
                          percent(window.share(h.free_s)).c_str(), percent(window.share(h.contended_s)).c_str());
            notes.push_back(line);
            std::snprintf(line, sizeof line,
                          "wall %.3f s, CPU %.3f s (%.2f cores; the sampler's own %.3f s not included); switch interval %s.",
                          w.wall_s, w.cpu_s, w.wall_s > 0 ? w.cpu_s / w.wall_s : 0.0, w.sampler_cpu_s,
                          ms_text(w.switch_interval_s * 1e3).c_str());
            notes.push_back(line);
            notes.push_back(sampling_note(w));
            if (h.unattributed.held_s > 0)
                notes.push_back("unattributed: " + percent(window.share(h.unattributed.held_s)) +
                                " of the time the holder's thread state could not be proven to be a "
                                "known thread (a thread that started and ended outside threading).");
            if (w.truncated)
                notes.push_back("the sample buffer filled: the figures cover the first " + ms_text(std::round(window.s * 1e3)) + " only.");
            if (!waits_measured(w))
            {
                notes.push_back("waiting: not measured here (/proc/self/task is not readable).");
                return notes;
            }
            std::snprintf(line, sizeof line,
                          "waiting: from the first poll that found the thread blocked on the GIL's condition "
                          "variable (polls every %.1f ms on average, and after hand-overs) until a sample showed it "
                          "took the GIL, proven by the switch counter: a lower bound.",
                          w.wait_round_s * 1e3);
            notes.push_back(line);
            return notes;
        }

        nl::json watch_data(const gil_watch_record& w, const std::string& mode, const watch_window& window)
        {
            const gil_holders& h = w.holders;
            return {{"mode", mode}, {"handovers", w.handovers}, {"missed_turns", h.missed_turns()}, {"handovers_seen", h.handovers_seen}, {"idle_share", window.share(h.free_s)}, {"idle_s", h.free_s}, {"contended_share", window.share(h.contended_s)}, {"unattributed_share", window.share(h.unattributed.held_s)}, {"window_s", window.s}, {"wall_s", w.wall_s}, {"cpu_s", w.cpu_s}, {"sampler_cpu_s", w.sampler_cpu_s}, {"sampler_realtime", w.sampler_realtime}, {"period_us", w.period_s * 1e6}, {"mean_sample_gap_us", w.mean_gap_s * 1e6}, {"max_sample_gap_ms", w.max_gap_s * 1e3}, {"samples", h.samples}, {"truncated", w.truncated}, {"switch_interval_ms", w.switch_interval_s * 1e3}, {"waiting_measured", waits_measured(w)}, {"wait_poll_ms", w.wait_round_s * 1e3}, {"python_version", python_version()}};
        }

        Result watch_result(const gil_watch_record& w, const std::string& mode)
        {
            const watch_window window{w.holders.window_s};
            const std::vector<thread_row> rows = ordered_threads(w);
            const auto shown = std::count_if(rows.begin(), rows.end(), [](const thread_row& r) { return r.entry != nullptr; });
            Result result;
            result.magic = "gilwatch";
            result.table.title = std::string("gilwatch: who held the GIL ") +
                                 (mode == "span" ? "between %gilwatch start and stop" : "while the cell ran") + " (" +
                                 format_short(window.s) + " s, " + count_text(shown, "thread") + ")";
            result.table.columns = watch_columns();
            nl::json threads = nl::json::array(), lanes = nl::json::array();
            for (const thread_row& row : rows)
            {
                result.table.rows.push_back(thread_table_row(row, window));
                lanes.push_back(lane_record(row, window.s * 1e3));
                if (row.entry) threads.push_back(thread_record(row, window));
            }
            result.table.rows.push_back({free_lane, Cell{}, w.holders.free_s, window.share(w.holders.free_s) * 100,
                                         Cell{}, Cell{}, Cell{}, Cell{}});
            result.table.notes = watch_notes(w, window);
            result.chart = watch_chart(rows, mode, window.s * 1e3);
            result.data = watch_data(w, mode, window);
            result.data["threads"] = threads;
            result.data["lanes"] = lanes;
            return result;
        }

        Result blamed_result(const gil_watch_record& record, const std::string& mode, const watched_cell& cell)
        {
            Result result = watch_result(record, mode);
            add_blame(result, record, cell);
            return result;
        }

        Result started_result(double period_s)
        {
            Result result;
            result.magic = "gilwatch";
            result.table.title = "gilwatch: watching the GIL";
            result.table.columns = {{"sampler", "sampler", ""}, {"period", "samples every", "ms"}};
            result.table.rows.push_back({"native GIL-state sampler", period_s * 1e3});
            result.table.notes.push_back("it records in memory only; %gilwatch stop reports the whole span.");
            result.data = {{"mode", "started"}, {"period_us", period_s * 1e6}};
            return result;
        }

        Result run_line(const magic_call& call, double period_s)
        {
            if (call.args.positionals().empty())
                throw usage_error("%gilwatch needs start or stop (or use %%gilwatch on a cell)");
            const std::string& action = call.args.positionals()[0];
            kept_instrument<gil_watch>& watch = persistent_watch();
            if (action == "start")
            {
                if (watch.running()) throw usage_error("%gilwatch: a watch is already running; %gilwatch stop first");
                watch.keep(std::make_unique<gil_watch>("gilwatch", period_s, !call.args.has("no-blame")));
                python_side::keep_interpreter_state();  // its thread hook outlives this cell
                return started_result(period_s);
            }
            if (action == "stop")
            {
                if (!watch.running()) throw usage_error("%gilwatch: no watch is running; %gilwatch start first");
                if (call.args.has("period") || call.args.has("no-blame"))
                    throw usage_error("%gilwatch stop: --period and --no-blame belong to %gilwatch start");
                std::unique_ptr<gil_watch> stopped = watch.take();
                python_side::keep_interpreter_state();  // the hook it removes stays removed
                return blamed_result(stopped->finish(), "span", {});
            }
            throw usage_error("%gilwatch: bad action " + shown(action) + "; accepted: start, stop");
        }

        Result watched_cell_result(const magic_call& call, double period_s)
        {
            const bool blame = !call.args.has("no-blame");
            return blamed_result(watch_cell(call, period_s, blame), "cell", {*call.cell, watched_cell_filename});
        }

        Result measure(const magic_call& call)
        {
            if (call.args.has("exact") || call.args.has("python")) return measure_exact(call);
            const double period_s = read_period(call.args);
            if (!call.cell) return run_line(call, period_s);
            if (!call.args.positionals().empty())
                throw usage_error("%%gilwatch takes no start/stop; those are for the line form %gilwatch");
            if (call.cell->find_first_not_of(" \t\r\n") == std::string::npos)
                throw usage_error("%%gilwatch needs a cell to run");
            return watched_cell_result(call, period_s);
        }
    }

    magic_definition gilwatch_magic()
    {
        return {"gilwatch", magic_kind::line_cell, parser(), &measure};
    }
}
