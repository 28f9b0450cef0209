// %%gilwatch: who held the GIL, thread by thread, while a cell ran. A native
// sampler reads CPython 3.11's GIL state without taking the GIL (gil_watch);
// holders are mapped to Python threads through a registry that proves each
// thread-state pointer's owner (thread_registry.hpp). %gilwatch start / stop
// keeps one watch across cells, as %heartbeat start / stop does its probe.
// Reads as: parse -> measure -> result.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

#include "render/figures.hpp"
#include "instruments/gil_watch.hpp"
#include "framework/magic_state.hpp"
#include "render/number_format.hpp"
#include "framework/registry.hpp"
#include "base/stats.hpp"
#include "instruments/switch_interval.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        // The default period follows the switch interval: a thread that wants
        // the GIL forces a hand-over only after waiting one interval, so turns
        // of contending threads last about an interval, and a fifth of it
        // (1 ms at CPython's 5 ms) places their ends within a fifth of a turn
        // at a twentieth of the wake-ups of 50 us, each of which costs the
        // watched code where no core is free (bench/gilwatch_overhead).
        constexpr double period_per_interval = 1.0 / 5;
        constexpr double min_default_period_s = 50e-6;
        constexpr double max_default_period_s = 1e-3;
        // The chart draws at most this many bars: past it, a lane's turns closer
        // than a pixel's worth of time merge into one bar.
        constexpr std::size_t max_chart_segments = 4000;
        // The JSON keeps each thread's turns up to this many, merged the same way past it.
        constexpr std::size_t max_data_segments = 20000;

        const char* free_lane = "(nobody: GIL free)";
        const char* unattributed_lane = "(unattributed)";

        // ---- parse ----------------------------------------------------------

        arg_parser parser()
        {
            return arg_parser(
                "gilwatch",
                "Watch who holds the GIL, thread by thread, while a cell runs.\n\n"
                "  %%gilwatch           run the cell and report each thread's time holding the GIL\n"
                "  %gilwatch start      start watching and keep watching across cells\n"
                "  %gilwatch stop       stop and report the whole span\n\n"
                "A native thread reads CPython 3.11's own GIL state (_PyRuntime.ceval.gil: whether it is held,\n"
                "the holder's thread state, the switch counter) every --period without taking the GIL, so the\n"
                "cell runs as it would unwatched. The default period is the switch interval / 5, within 50 us\n"
                "to 1 ms (1 ms at CPython's 5 ms): a thread that wants the GIL forces a hand-over only after\n"
                "waiting one interval, so contending threads' turns last about an interval, and hand-overs need\n"
                "no sampling (the switch counter counts each). Each holder is matched to its Python thread\n"
                "(name and ident, threads that ended included) through thread-state ids recorded with the GIL\n"
                "held; a holder it cannot prove stays 'unattributed'. Per thread: time holding the GIL and its\n"
                "share of the cell's wall time, turns (stretches of holding with no hand-over), median and\n"
                "longest turn, and time waiting for the GIL. Overall: hand-overs (exact), the share of time\n"
                "nobody held the GIL, the share during which a waiting thread had asked the holder to drop it,\n"
                "wall and CPU time. The timeline: one lane per thread, a bar per turn.\n"
                "Waiting: every 2 ms, and after each hand-over for the thread that gave the GIL up, the sampler\n"
                "asks the OS what threads are blocked in (/proc/self/task/TID/syscall). Blocked on the GIL's\n"
                "condition variable means inside CPython's take_gil(); from there the GIL's own state proves the\n"
                "thread still waits (woken and queued for a core included) until a sample shows it took the GIL:\n"
                "a take adds one to the switch counter and makes it the last holder. A wait counts only from the\n"
                "first poll that finds it, and a thread queued for a core before it asks again is not waiting\n"
                "yet, so waiting_s is a lower bound.\n"
                "Limits: each sample's state is credited with the time until the next sample, so held times are\n"
                "unbiased while samples fall independently of the cell: gaps are spread over 0.5-1.5 periods\n"
                "(no locking onto a periodic workload), and the sampler runs at real-time priority where the\n"
                "process may (else a busy machine wakes it late just while the cell keeps the cores busy, and\n"
                "held shares of many short turns read low; the notes say which).\n"
                "A turn shorter than the gap between two samples is seen only when a sample falls inside it (it\n"
                "then counts as one turn of at least that gap) and is otherwise missed:\n"
                "missed_turns says how many hand-overs no sample saw. Turn lengths are whole sample gaps. The\n"
                "layout is checked against the running interpreter first: another version is refused with a\n"
                "one-line error. Cost: one wake-up per period; --period 250us or 50us resolve short turns\n"
                "finer for 4 or 20 times the wake-ups, which cost the watched code where no core is free\n"
                "(figures: bench/gilwatch_overhead).\n"
                "The cell runs in your namespace (%magics and top-level await work); the result object is the\n"
                "output (-o NAME keeps it): threads (list of dicts: name, ident, native_id, held_s, held_share,\n"
                "turns, median_turn_ms, longest_turn_ms, waiting_s, waiting_share, started_in_window,\n"
                "alive_at_end), held_share(name), waiting_share(name), turns(name), segments(name) (each\n"
                "turn's start_ms/end_ms since the cell started), handovers,\n"
                "missed_turns, idle_share, contended_share, unattributed_share, wall_s, cpu_s, period_us, rows,\n"
                "to_dict(); name may be a thread's name or its ident.",
                {{"period", 'p', "DURATION", "time between two samples of the GIL state (10us to 10ms; default the switch "
                                               "interval / 5, within 50us to 1ms)"},
                 output_option()},
                1, "start|stop: the line form, one watch across cells");
        }

        double read_period(const parsed_args& args)
        {
            const double automatic = std::clamp(switch_interval_s() * period_per_interval, min_default_period_s,
                                                max_default_period_s);
            return args.duration("period", automatic, 10e-6, 10e-3);
        }

        // ---- measure --------------------------------------------------------

        // The one watch kept between `%gilwatch start` and `%gilwatch stop`.
        std::unique_ptr<gil_watch>& persistent_watch()
        {
            static std::unique_ptr<gil_watch> watch;
            return watch;
        }

        gil_watch_record watch_cell(const std::string& cell, py::dict user_ns, double period_s)
        {
            py::module_ runner = py::module_::import("gillab.cell_runner");
            py::object code;
            try
            {
                code = runner.attr("compile_cell")(cell, "gilwatch");
            }
            catch (py::error_already_set& error)
            {
                if (!error.matches(runner.attr("CellSyntaxError"))) throw;
                throw usage_error(py::str(error.value()).cast<std::string>());
            }
            gil_watch watch("gilwatch", period_s);
            runner.attr("run")(code, user_ns);
            return watch.finish();
        }

        // ---- result ---------------------------------------------------------

        struct thread_row
        {
            std::string name;
            const known_thread* entry;  // null for the pseudo-lanes
            const holder_figures* figures;
            double waiting_s;           // NaN: not measured
        };

        // Turns closer than `gap_ms` merge: what a lane can show at its resolution.
        std::vector<gil_segment> merged(const std::vector<gil_segment>& turns, double gap_ms)
        {
            std::vector<gil_segment> out;
            for (const gil_segment& turn : turns)
            {
                if (!out.empty() && turn.start_ms - out.back().end_ms < gap_ms)
                    out.back().end_ms = std::max(out.back().end_ms, turn.end_ms);
                else
                    out.push_back(turn);
            }
            return out;
        }

        std::vector<gil_segment> at_most(const std::vector<gil_segment>& turns, std::size_t limit, double window_ms)
        {
            std::vector<gil_segment> out = turns;
            for (double gap = window_ms / static_cast<double>(limit); out.size() > limit; gap *= 2) out = merged(turns, gap);
            return out;
        }

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

        Result watch_result(const gil_watch_record& w, const std::string& mode)
        {
            const gil_holders& h = w.holders;
            const thread_registry& registry = *w.registry;
            const double window_s = h.window_s;
            const double window_ms = window_s * 1e3;
            auto share = [window_s](double s) { return window_s > 0 ? s / window_s : 0.0; };

            std::vector<thread_row> rows;
            for (std::size_t i = 0; i < registry.threads().size(); ++i)
                rows.push_back({registry.name(i), &registry.threads()[i], &h.threads[i], w.waiting_s[i]});
            std::stable_sort(rows.begin(), rows.end(),
                             [](const thread_row& a, const thread_row& b) { return a.figures->held_s > b.figures->held_s; });
            if (h.unattributed.held_s > 0) rows.push_back({unattributed_lane, nullptr, &h.unattributed, std::nan("")});

            Result result;
            result.magic = "gilwatch";
            result.table.title = std::string("gilwatch: who held the GIL ") +
                                 (mode == "span" ? "between %gilwatch start and stop" : "while the cell ran") + " (" +
                                 format_short(window_s) + " s, " + count_text(registry.threads().size(), "thread") + ")";
            result.table.columns = {{"thread", "thread", ""}, {"ident", "ident", "", true}, {"held", "held the GIL", "s"},
                                    {"share", "share of wall time", "%"}, {"turns", "turns", ""},
                                    {"median_turn", "median turn", "ms"}, {"longest_turn", "longest turn", "ms"},
                                    {"waiting", "waiting for it", "s"}};
            Chart chart;
            chart.kind = Chart::Kind::segments;
            chart.title = "Who held the GIL: a bar per turn";
            chart.x_title = mode == "span" ? "time since %gilwatch start (ms)" : "time since the cell started (ms)";
            std::size_t drawn_turns = 0;
            for (const thread_row& row : rows) drawn_turns += row.figures->turns.size();

            nl::json threads = nl::json::array();
            nl::json lanes = nl::json::array();
            for (const thread_row& row : rows)
            {
                const holder_figures& f = *row.figures;
                std::vector<double> lengths;
                for (const gil_segment& turn : f.turns) lengths.push_back(turn.end_ms - turn.start_ms);
                const summary s = summarize(lengths);
                const std::int64_t turns = static_cast<std::int64_t>(lengths.size());
                Row table_row = {row.name, Cell{}, f.held_s, share(f.held_s) * 100, turns, Cell{}, Cell{}, Cell{}};
                if (row.entry) table_row[1] = static_cast<std::int64_t>(row.entry->ident);
                if (!lengths.empty())
                {
                    table_row[5] = s.median;
                    table_row[6] = s.max;
                }
                if (std::isfinite(row.waiting_s)) table_row[7] = row.waiting_s;
                result.table.rows.push_back(table_row);
                if (!f.turns.empty())
                {
                    const std::size_t lane = chart.lanes.size();
                    chart.lanes.push_back(row.name);
                    const std::size_t budget = std::max<std::size_t>(
                        50, max_chart_segments * f.turns.size() / std::max<std::size_t>(1, drawn_turns));
                    for (const gil_segment& seg : at_most(f.turns, budget, window_ms))
                        chart.segments.push_back({0, lane, seg.start_ms, seg.end_ms});
                }
                const std::vector<gil_segment> kept = at_most(f.turns, max_data_segments, window_ms);
                lanes.push_back({{"name", row.name}, {"ident", row.entry ? nl::json(row.entry->ident) : nl::json(nullptr)},
                                 {"segments", segments_json(kept)}, {"merged", kept.size() < f.turns.size()}});
                if (!row.entry) continue;
                threads.push_back({{"name", row.name}, {"ident", row.entry->ident}, {"native_id", row.entry->native_id},
                                   {"held_s", f.held_s}, {"held_share", share(f.held_s)}, {"turns", turns},
                                   {"median_turn_ms", lengths.empty() ? nl::json(nullptr) : nl::json(s.median)},
                                   {"longest_turn_ms", lengths.empty() ? nl::json(nullptr) : nl::json(s.max)},
                                   {"waiting_s", number_or_null(row.waiting_s)},
                                   {"waiting_share", number_or_null(share(row.waiting_s))},
                                   {"started_in_window", !row.entry->alive_at_start},
                                   {"alive_at_end", row.entry->alive_at_end}});
            }
            result.table.rows.push_back({free_lane, Cell{}, h.free_s, share(h.free_s) * 100, Cell{}, Cell{}, Cell{}, Cell{}});

            char line[400];
            result.table.notes.push_back("hand-overs: " + grouped(static_cast<std::int64_t>(w.handovers)) +
                                         " (CPython's switch counter, exact); " +
                                         grouped(static_cast<std::int64_t>(h.missed_turns())) +
                                         " of them went to turns shorter than the gap between two samples, which no "
                                         "sample saw and no thread's turns count.");
            std::snprintf(line, sizeof line,
                          "GIL free %s of the time; a waiting thread had asked the holder to drop it %s of the time.",
                          percent(share(h.free_s)).c_str(), percent(share(h.contended_s)).c_str());
            result.table.notes.push_back(line);
            std::snprintf(line, sizeof line,
                          "wall %.3f s, CPU %.3f s (%.2f cores; the sampler's own %.3f s not included); switch "
                          "interval %s.",
                          w.wall_s, w.cpu_s, w.wall_s > 0 ? w.cpu_s / w.wall_s : 0.0, w.sampler_cpu_s,
                          ms_text(w.switch_interval_s * 1e3).c_str());
            result.table.notes.push_back(line);
            std::snprintf(line, sizeof line,
                          "sampled every %.0f us on average (achieved: %.0f us, longest gap %.2f ms, %s, %s); a "
                          "sample's state is credited with the time to the next one, so turn lengths are whole gaps.",
                          w.period_s * 1e6, w.mean_gap_s * 1e6, w.max_gap_s * 1e3,
                          count_text(static_cast<std::int64_t>(h.samples), "sample").c_str(),
                          w.sampler_realtime ? "at real-time priority"
                                             : "at normal priority: on a busy machine it wakes late, and held "
                                               "shares of many short turns read low");
            result.table.notes.push_back(line);
            if (h.unattributed.held_s > 0)
                result.table.notes.push_back("unattributed: " + percent(share(h.unattributed.held_s)) +
                                             " of the time the holder's thread state could not be proven to be a "
                                             "known thread (a thread that started and ended outside threading).");
            if (w.truncated)
                result.table.notes.push_back("the sample buffer filled: the figures cover the first " +
                                             ms_text(std::round(window_ms)) + " only.");
            const bool waits = std::any_of(w.waiting_s.begin(), w.waiting_s.end(), [](double b) { return std::isfinite(b); });
            if (waits)
            {
                std::snprintf(line, sizeof line,
                              "waiting: from the first poll that found the thread blocked on the GIL's condition "
                              "variable (polls every %.1f ms on average, and after hand-overs) until a sample showed it "
                              "took the GIL, proven by the switch counter: a lower bound.", w.wait_round_s * 1e3);
                result.table.notes.push_back(line);
            }
            else
            {
                result.table.notes.push_back("waiting: not measured here (/proc/self/task is not readable).");
            }
            result.chart = chart;
            result.data = {{"mode", mode}, {"threads", threads}, {"lanes", lanes},
                           {"handovers", w.handovers}, {"missed_turns", h.missed_turns()},
                           {"handovers_seen", h.handovers_seen}, {"idle_share", share(h.free_s)},
                           {"idle_s", h.free_s}, {"contended_share", share(h.contended_s)},
                           {"unattributed_share", share(h.unattributed.held_s)}, {"window_s", window_s},
                           {"wall_s", w.wall_s}, {"cpu_s", w.cpu_s}, {"sampler_cpu_s", w.sampler_cpu_s}, {"sampler_realtime", w.sampler_realtime},
                           {"period_us", w.period_s * 1e6}, {"mean_sample_gap_us", w.mean_gap_s * 1e6},
                           {"max_sample_gap_ms", w.max_gap_s * 1e3}, {"samples", h.samples},
                           {"truncated", w.truncated}, {"switch_interval_ms", w.switch_interval_s * 1e3},
                           {"waiting_measured", waits}, {"wait_poll_ms", w.wait_round_s * 1e3},
                           {"python_version", py::module_::import("platform").attr("python_version")().cast<std::string>()}};
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
            std::unique_ptr<gil_watch>& watch = persistent_watch();
            if (action == "start")
            {
                if (watch) throw usage_error("%gilwatch: a watch is already running; %gilwatch stop first");
                watch = std::make_unique<gil_watch>("gilwatch", period_s);
                magic_state_guard::keep_interpreter_state();  // its thread hook outlives this cell
                static bool stop_at_exit = false;
                if (!stop_at_exit)
                {
                    py::module_::import("atexit").attr("register")(py::cpp_function([] { persistent_watch().reset(); }));
                    stop_at_exit = true;
                }
                return started_result(period_s);
            }
            if (action == "stop")
            {
                if (!watch) throw usage_error("%gilwatch: no watch is running; %gilwatch start first");
                if (call.args.has("period"))
                    throw usage_error("%gilwatch stop: --period belongs to %gilwatch start");
                std::unique_ptr<gil_watch> stopped = std::move(watch);
                magic_state_guard::keep_interpreter_state();  // the hook it removes stays removed
                return watch_result(stopped->finish(), "span");
            }
            throw usage_error("%gilwatch: bad action " + shown(action) + "; accepted: start, stop");
        }

        Result measure(const magic_call& call)
        {
            const double period_s = read_period(call.args);
            if (!call.cell) return run_line(call, period_s);
            if (!call.args.positionals().empty())
                throw usage_error("%%gilwatch takes no start/stop; those are for the line form %gilwatch");
            if (call.cell->find_first_not_of(" \t\r\n") == std::string::npos)
                throw usage_error("%%gilwatch needs a cell to run");
            return watch_result(watch_cell(*call.cell, call.user_ns, period_s), "cell");
        }
    }

    // The result object of %%gilwatch: per-thread look-ups besides the table.
    struct gilwatch_result_object : Result
    {
        explicit gilwatch_result_object(Result r) : Result(std::move(r)) {}

        // The lanes or threads `who` names: a thread's name (all threads of that
        // name) or its ident.
        std::vector<const nl::json*> find(const std::string& key, const py::object& who) const
        {
            std::vector<const nl::json*> found;
            const bool by_ident = py::isinstance<py::int_>(who);
            const std::string name = by_ident ? "" : py::str(who).cast<std::string>();
            std::string known;
            if (!data.contains(key)) throw py::key_error("this result has no threads (a %gilwatch start result)");
            for (const nl::json& entry : data[key])
            {
                const bool match = by_ident ? entry["ident"].is_number() && entry["ident"].get<unsigned long long>() == who.cast<unsigned long long>()
                                            : entry["name"] == name;
                if (match) found.push_back(&entry);
                known += (known.empty() ? "" : ", ") + entry["name"].get<std::string>();
            }
            if (found.empty())
                throw py::key_error("no thread " + py::repr(who).cast<std::string>() + " in this watch; threads: " + known);
            return found;
        }

        double held_share(const py::object& who) const
        {
            double total = 0;
            for (const nl::json* t : find("threads", who)) total += (*t)["held_share"].get<double>();
            return total;
        }

        double waiting_share(const py::object& who) const
        {
            double total = 0;
            for (const nl::json* t : find("threads", who))
            {
                if (!(*t)["waiting_share"].is_number())
                    throw py::value_error("waits were not measured for " + py::repr(who).cast<std::string>());
                total += (*t)["waiting_share"].get<double>();
            }
            return total;
        }

        nl::json segments(const py::object& who) const
        {
            nl::json out = nl::json::array();
            for (const nl::json* lane : find("lanes", who))
                for (const nl::json& s : (*lane)["segments"]) out.push_back(s);
            std::sort(out.begin(), out.end(), [](const nl::json& a, const nl::json& b) { return a["start_ms"] < b["start_ms"]; });
            return out;
        }

        std::int64_t turns(const py::object& who) const
        {
            std::int64_t total = 0;
            for (const nl::json* t : find("threads", who)) total += (*t)["turns"].get<std::int64_t>();
            return total;
        }
    };

    void bind_gilwatch_result(py::module_& m)
    {
        py::class_<gilwatch_result_object, Result>(m, "GilwatchResult")
            .def("held_share", &gilwatch_result_object::held_share, "name"_a,
                 "the share of the wall time the thread(s) of this name (or ident) held the GIL, 0 to 1")
            .def("waiting_share", &gilwatch_result_object::waiting_share, "name"_a,
                 "the share of the wall time the thread(s) were proven waiting for the GIL (a lower bound)")
            .def("turns", &gilwatch_result_object::turns, "name"_a, "how many turns the thread(s) held the GIL")
            .def("segments", [](const gilwatch_result_object& r, const py::object& who) { return py::cast(r.segments(who)); },
                 "name"_a, "each turn of the thread(s) as {'start_ms', 'end_ms'} since the window opened, in order");
    }

    magic_definition gilwatch_magic()
    {
        return {"gilwatch", magic_kind::line_cell, parser(), &measure,
                [](Result r) { return py::cast(gilwatch_result_object(std::move(r))); }, &bind_gilwatch_result};
    }
}
