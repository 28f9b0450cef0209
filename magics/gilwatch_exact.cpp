// %%gilwatch --exact: the cell runs inside the exact trace of GIL hand-overs
// (runners/task_gil_trace.py with the native gil_trace tool); here the trace
// becomes the table of threads, the table of waits taken apart, the timeline
// of every turn and the I/O convoy, where there is one.
// Reads as: parse -> measure -> result.
#include "gilwatch_exact.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include <pybind11/pybind11.h>

#include "base/stats.hpp"
#include "framework/progress.hpp"
#include "framework/runner.hpp"
#include "instruments/gil_holders.hpp"
#include "render/figures.hpp"
#include "workers/interpreters.hpp"

namespace gillab
{
    namespace
    {
        const char* forced_lane = "forced hand-overs";
        // Limits, as a long cell at 1 ms makes tens of thousands of turns and waits: the chart draws
        // about max_chart_turns turns (a lane's turns closer than its share of the window merge into
        // one bar), the record keeps max_data_items waits and as many turns, merged the same way.
        constexpr std::size_t max_chart_turns = 4000, max_data_items = 10000;

        // A convoy: a thread that holds the GIL briefly beside the interval (it lets it go
        // soon: I/O, a sleep) and whose waits to get it back are about a whole interval,
        // forced out of a thread whose turns last about the interval (CPU-bound).
        constexpr int convoy_min_waits = 5;
        constexpr double convoy_wait_share = 0.8, convoy_turn_share = 0.25, cpu_bound_turn_share = 0.5;

        // ---- parse ----------------------------------------------------------

        void check_call(const magic_call& call)
        {
            if (call.args.has("python") && !call.args.has("exact"))
                throw usage_error("%%gilwatch: --python goes with --exact; the sampled watch reads this kernel's GIL only");
            if (!call.cell) throw usage_error("%gilwatch --exact: --exact traces a cell; use %%gilwatch --exact on a cell");
            if (call.args.has("period") || call.args.has("no-blame"))
                throw usage_error("%%gilwatch --exact: --period and --no-blame belong to the sampled watch; --exact "
                                  "takes -o only");
            if (!call.args.positionals().empty())
                throw usage_error("%%gilwatch takes no start/stop; those are for the line form %gilwatch");
            if (call.cell->find_first_not_of(" \t\r\n") == std::string::npos)
                throw usage_error("%%gilwatch --exact needs a cell to run");
        }

        // ---- measure --------------------------------------------------------

        struct exact_wait
        {
            int taker = -1, giver = -1;  // indexes into exact_trace::threads; -1 unknown
            bool forced = false;
            double asked_ms = 0, took_ms = 0, interval_ms = 0, holder_ms = 0, wake_ms = 0, take_ms = 0;
            double total_ms() const { return took_ms - asked_ms; }
            double parts_ms() const { return interval_ms + holder_ms + wake_ms + take_ms; }
        };

        struct exact_thread
        {
            std::string name;
            unsigned long ident = 0;
            long native_id = 0;
            double held_s = 0, waited_s = 0;
            int requests = 0;
            std::int64_t retakes = 0;  // drops it took back before any other thread took the GIL
            std::vector<gil_segment> turns;
            std::vector<double> waits_ms, turn_ms;  // its waits that ended in a hand-over to it; its turns' lengths
            int forced = 0;  // hand-overs it forced
        };

        struct exact_trace
        {
            double interval_ms = 0, interval_end_ms = 0, duration_s = 0;
            std::int64_t switches = 0, lost = 0;
            int forced = 0, voluntary = 0;
            std::vector<exact_thread> threads;
            std::vector<exact_wait> waits;
        };

        exact_thread thread_of(const nl::json& t)
        {
            exact_thread out;
            out.name = t.at("name").get<std::string>();
            out.ident = t.at("ident").get<unsigned long>();
            out.native_id = t.at("native_id").get<long>();
            out.held_s = t.at("held_s").get<double>();
            out.waited_s = t.at("waited_s").get<double>();
            out.requests = t.at("requests").get<int>();
            out.retakes = t.at("retakes").get<std::int64_t>();
            for (const nl::json& s : t.at("spans"))
            {
                out.turns.push_back({s.at(0).get<double>() * 1e3, s.at(1).get<double>() * 1e3});
                out.turn_ms.push_back(out.turns.back().end_ms - out.turns.back().start_ms);
            }
            return out;
        }

        exact_wait wait_of(const nl::json& h, const std::map<unsigned long, int>& index)
        {
            auto thread = [&](const nl::json& ident) {
                if (ident.is_null()) return -1;
                const auto found = index.find(ident.get<unsigned long>());
                return found == index.end() ? -1 : found->second;
            };
            auto ms = [&](const char* key) { return h.at(key).get<double>() * 1e3; };
            return {thread(h.at("taker")), thread(h.at("giver")), h.at("forced").get<bool>(), ms("asked_s"), ms("took_s"),
                    ms("interval_s"), ms("holder_s"), ms("wake_s"), ms("take_s")};
        }

        exact_trace trace_of(const nl::json& answer)
        {
            exact_trace trace;
            trace.interval_ms = answer.at("interval_s").get<double>() * 1e3;
            trace.interval_end_ms = answer.at("interval_end_s").get<double>() * 1e3;
            trace.duration_s = answer.at("duration_s").get<double>();
            trace.switches = answer.at("switches").get<std::int64_t>();
            trace.lost = answer.at("lost").get<std::int64_t>();
            trace.forced = answer.at("forced").get<int>();
            trace.voluntary = answer.at("voluntary").get<int>();
            std::map<unsigned long, int> index;
            for (const nl::json& t : answer.at("threads"))
            {
                index[t.at("ident").get<unsigned long>()] = static_cast<int>(trace.threads.size());
                trace.threads.push_back(thread_of(t));
            }
            for (const nl::json& h : answer.at("handovers"))
            {
                const exact_wait wait = wait_of(h, index);
                if (wait.taker >= 0)
                {
                    exact_thread& taker = trace.threads[static_cast<std::size_t>(wait.taker)];
                    taker.waits_ms.push_back(wait.total_ms());
                    taker.forced += wait.forced;
                }
                trace.waits.push_back(wait);
            }
            return trace;
        }

        // The one interpreter --python names (the kernel by default) through runners/task_gil_trace.py:
        // in the kernel the cell, compiled as the shell would, runs in the user's namespace
        // (tools.namespace) inside the native trace; in a child, in a fresh namespace inside the
        // trace library's.
        exact_trace trace_cell(const magic_call& call, const measurement_target& target)
        {
            progress_ticker ticker("gilwatch", "tracing the cell");
            const nl::json request = {{"task", "gil_trace"}, {"cell", *call.cell}};
            if (!target.is_kernel) return trace_of(run_task(target, request, "gilwatch"));
            return trace_of(run_kernel_task(request, "gilwatch", call.user_ns).cast<nl::json>());
        }

        measurement_target one_target(const magic_call& call)
        {
            std::vector<measurement_target> targets = resolve_interpreters(call.args.text("python", ""), "gilwatch");
            if (targets.size() != 1)
                throw usage_error("%%gilwatch --exact traces one interpreter per cell; --python named " + std::to_string(targets.size()));
            if (targets[0].is_kernel) targets[0].info = kernel_interpreter_info();
            return targets[0];
        }

        // ---- result ---------------------------------------------------------

        struct spread
        {
            double median = NAN, p95 = NAN, max = NAN;
        };

        spread spread_of(const std::vector<double>& values)
        {
            if (values.empty()) return {};
            const summary s = summarize(values);
            return {s.median, quantile(values, 0.95), s.max};
        }

        nl::json spread_json(const spread& s)
        {
            return {{"median", number_or_null(s.median)}, {"p95", number_or_null(s.p95)}, {"max", number_or_null(s.max)}};
        }

        Cell cell_of(double value)
        {
            return std::isfinite(value) ? Cell{value} : Cell{};
        }

        // The threads that took part, most time held first.
        std::vector<const exact_thread*> shown_threads(const exact_trace& trace)
        {
            std::vector<const exact_thread*> out;
            for (const exact_thread& t : trace.threads)
                if (!t.turns.empty() || !t.waits_ms.empty()) out.push_back(&t);
            std::stable_sort(out.begin(), out.end(), [](const exact_thread* a, const exact_thread* b) { return a->held_s > b->held_s; });
            return out;
        }

        std::vector<Column> thread_columns()
        {
            return {{"thread", "thread", ""}, {"ident", "ident", "", true}, {"held", "held the GIL", "s"}, {"share", "share of wall time", "%"}, {"waited", "waited for it", "s"}, {"turns", "turns", ""}, {"median_turn", "median turn", "ms"}, {"p95_turn", "p95 turn", "ms"}, {"longest_turn", "longest turn", "ms"}, {"waits", "hand-overs to it", ""}, {"forced", "forced by it", ""}, {"median_wait", "median wait", "ms"}, {"p95_wait", "p95 wait", "ms"}, {"longest_wait", "longest wait", "ms"}};
        }

        Row thread_row(const exact_thread& t, double duration_s)
        {
            const spread turns = spread_of(t.turn_ms), waits = spread_of(t.waits_ms);
            return {t.name, static_cast<std::int64_t>(t.ident), t.held_s, duration_s > 0 ? t.held_s / duration_s * 100 : 0.0,
                    t.waited_s, static_cast<std::int64_t>(t.turns.size()), cell_of(turns.median), cell_of(turns.p95),
                    cell_of(turns.max), static_cast<std::int64_t>(t.waits_ms.size()), static_cast<std::int64_t>(t.forced),
                    cell_of(waits.median), cell_of(waits.p95), cell_of(waits.max)};
        }

        nl::json thread_json(const exact_thread& t, double duration_s)
        {
            const double share = duration_s > 0 ? 1 / duration_s : 0.0;
            return {{"name", t.name}, {"ident", t.ident}, {"native_id", t.native_id}, {"held_s", t.held_s}, {"held_share", t.held_s * share}, {"waiting_s", t.waited_s}, {"waiting_share", t.waited_s * share}, {"turns", t.turns.size()}, {"turn_ms", spread_json(spread_of(t.turn_ms))}, {"waits", t.waits_ms.size()}, {"forced", t.forced}, {"wait_ms", spread_json(spread_of(t.waits_ms))}, {"drop_requests", t.requests}, {"retakes", t.retakes}};
        }

        // Per thread and kind of hand-over, the waits' parts summed: each wait's parts add up to it.
        struct parts_sum
        {
            int waits = 0;
            double total = 0, interval = 0, holder = 0, wake = 0, take = 0;
            std::vector<double> totals;
        };

        Table parts_table(const exact_trace& trace, const std::vector<const exact_thread*>& shown)
        {
            Table table;
            table.title = "each wait for a hand-over taken apart (ms, summed per thread)";
            table.columns = {{"thread", "thread", ""}, {"handover", "hand-over", ""}, {"waits", "waits", ""}, {"waited", "waited", "ms"}, {"interval", "interval", "ms"}, {"holder", "holder", "ms"}, {"wake", "wake", "ms"}, {"take", "take", "ms"}, {"median_wait", "median wait", "ms"}};
            std::map<std::pair<int, bool>, parts_sum> sums;
            for (const exact_wait& w : trace.waits)
            {
                parts_sum& s = sums[{w.taker, w.forced}];
                ++s.waits;
                s.total += w.total_ms();
                s.interval += w.interval_ms, s.holder += w.holder_ms, s.wake += w.wake_ms, s.take += w.take_ms;
                s.totals.push_back(w.total_ms());
            }
            for (const exact_thread* t : shown)
                for (bool forced : {true, false})
                {
                    const auto found = sums.find({static_cast<int>(t - trace.threads.data()), forced});
                    if (found == sums.end()) continue;
                    const parts_sum& s = found->second;
                    table.rows.push_back({t->name, forced ? "forced" : "voluntary", static_cast<std::int64_t>(s.waits), s.total,
                                          s.interval, s.holder, s.wake, s.take, summarize(s.totals).median});
                }
            table.notes.push_back("interval: from asking until its timed wait ran out and it set the drop request (forced "
                                  "hand-overs only); holder: until the holder reached its next check and dropped the GIL; "
                                  "wake: until the operating system ran the waiter again; take: until it held the GIL.");
            return table;
        }

        // The waits whose parts do not add up to the wait (none, unless the trace is wrong).
        std::int64_t parts_off(const exact_trace& trace)
        {
            return std::count_if(trace.waits.begin(), trace.waits.end(),
                                 [](const exact_wait& w) { return std::abs(w.parts_ms() - w.total_ms()) > 1e-6; });
        }

        struct convoy
        {
            const exact_thread* thread;
            const exact_thread* behind;
            int forced_waits;
            double median_wait_ms, median_turn_ms;
        };

        // The thread it was forced out of most often, if that one is CPU-bound.
        const exact_thread* cpu_bound_holder(const exact_trace& trace, int taker)
        {
            std::map<int, int> givers;
            for (const exact_wait& w : trace.waits)
                if (w.taker == taker && w.forced && w.giver >= 0) ++givers[w.giver];
            const auto most = std::max_element(givers.begin(), givers.end(), [](auto a, auto b) { return a.second < b.second; });
            if (most == givers.end()) return nullptr;
            const exact_thread& giver = trace.threads[static_cast<std::size_t>(most->first)];
            return spread_of(giver.turn_ms).median >= cpu_bound_turn_share * trace.interval_ms ? &giver : nullptr;
        }

        // How long it holds the GIL before letting it go: its median turn, or where it took its own
        // drops straight back (retakes: I/O nobody waited behind), its held time over its drops.
        double held_between_drops_ms(const exact_thread& t)
        {
            if (t.retakes == 0) return spread_of(t.turn_ms).median;
            return t.held_s * 1e3 / static_cast<double>(static_cast<std::int64_t>(t.turns.size()) + t.retakes);
        }

        std::vector<convoy> convoys(const exact_trace& trace)
        {
            std::vector<convoy> out;
            for (const exact_thread& t : trace.threads)
            {
                if (static_cast<int>(t.waits_ms.size()) < convoy_min_waits || 2 * t.forced < static_cast<int>(t.waits_ms.size()))
                    continue;
                const double wait = spread_of(t.waits_ms).median, turn = held_between_drops_ms(t);
                if (!(wait >= convoy_wait_share * trace.interval_ms && turn <= convoy_turn_share * trace.interval_ms)) continue;
                if (const exact_thread* behind = cpu_bound_holder(trace, static_cast<int>(&t - trace.threads.data())))
                    out.push_back({&t, behind, t.forced, wait, turn});
            }
            return out;
        }

        std::string convoy_note(const convoy& c, double interval_ms)
        {
            char line[600];
            std::snprintf(line, sizeof line,
                          "I/O convoy: '%s' lets the GIL go after holding it %s at a time and waited a median %s to get "
                          "it back, about a whole %s interval, forced out of '%s' %s: each time it gives the GIL up "
                          "(I/O, a sleep) it pays an interval to return.",
                          c.thread->name.c_str(), ms_text(c.median_turn_ms).c_str(), ms_text(c.median_wait_ms).c_str(),
                          ms_text(interval_ms).c_str(), c.behind->name.c_str(), count_text(c.forced_waits, "time").c_str());
            return line;
        }

        nl::json convoy_json(const std::vector<convoy>& found)
        {
            nl::json out = nl::json::array();
            for (const convoy& c : found)
                out.push_back({{"thread", c.thread->name}, {"ident", c.thread->ident}, {"behind", c.behind->name}, {"forced_waits", c.forced_waits}, {"median_wait_ms", c.median_wait_ms}, {"median_turn_ms", c.median_turn_ms}});
            return out;
        }

        std::vector<std::string> notes(const exact_trace& trace, const std::vector<convoy>& found)
        {
            std::vector<std::string> out;
            out.push_back("hand-overs: " + grouped(trace.forced + trace.voluntary) + ", every one traced (" +
                          grouped(trace.forced) + " forced: the waiter waited out the interval and asked; " +
                          grouped(trace.voluntary) + " voluntary: the holder let go unasked); CPython's switch counter moved by " +
                          grouped(trace.switches) + "; switch interval " + ms_text(trace.interval_ms) + ".");
            if (trace.interval_end_ms != trace.interval_ms)
                out.push_back("the switch interval changed while the cell ran: " + ms_text(trace.interval_ms) + " when it started, " +
                              ms_text(trace.interval_end_ms) + " when it ended; the convoy is judged against the first.");
            out.push_back("waited: from asking for the GIL to holding it, hand-over or not; the wait columns are the waits "
                          "that ended in a hand-over to the thread, cut into parts below.");
            for (const convoy& c : found) out.push_back(convoy_note(c, trace.interval_ms));
            if (trace.lost > 0)
                out.push_back(count_text(trace.lost, "event") + " not kept (a thread's buffer filled, or too many threads): the "
                                                                "counts may be short.");
            if (trace.waits.size() > max_data_items)
                out.push_back("the result keeps the first " + grouped(static_cast<std::int64_t>(max_data_items)) + " of " +
                              count_text(static_cast<std::int64_t>(trace.waits.size()), "wait") +
                              " (waits(), parts()); the tables count them all.");
            if (const std::int64_t off = parts_off(trace))
                out.push_back(count_text(off, "wait") + " whose parts do not add up to the wait.");
            return out;
        }

        // A strip per thread, a bar per turn; the last strip marks each forced hand-over where it
        // happened (a mark wide enough to see, the wait that forced it on hover).
        Chart timeline(const exact_trace& trace, const std::vector<const exact_thread*>& shown)
        {
            Chart chart;
            chart.kind = Chart::Kind::segments;
            chart.title = "Every turn holding the GIL, forced hand-overs marked";
            chart.x_title = "time since the cell started (ms)";
            const double window_ms = trace.duration_s * 1e3;
            std::size_t all_turns = 0;
            for (const exact_thread* t : shown) all_turns += t->turns.size();
            for (const exact_thread* t : shown)
            {
                const std::size_t lane = chart.lanes.size();
                chart.lanes.push_back(t->name);
                const std::size_t budget = std::max<std::size_t>(50, max_chart_turns * t->turns.size() / std::max<std::size_t>(1, all_turns));
                for (const gil_segment& s : at_most_turns(t->turns, budget, window_ms)) chart.segments.push_back({0, lane, s.start_ms, s.end_ms});
            }
            if (trace.forced == 0) return chart;
            const std::size_t lane = chart.lanes.size();
            chart.lanes.push_back(forced_lane);
            const double half = window_ms / 1600;
            for (const exact_wait& w : trace.waits)
            {
                if (!w.forced || w.taker < 0 || chart.segments.size() > 2 * max_chart_turns) continue;
                const std::string taker = trace.threads[static_cast<std::size_t>(w.taker)].name;
                chart.segments.push_back({0, lane, std::max(0.0, w.took_ms - half), w.took_ms + half,
                                          taker + " after waiting " + ms_text(w.total_ms())});
            }
            return chart;
        }

        nl::json waits_json(const exact_trace& trace)
        {
            auto name = [&](int i) { return i < 0 ? nl::json(nullptr) : nl::json(trace.threads[static_cast<std::size_t>(i)].name); };
            nl::json out = nl::json::array();
            for (std::size_t i = 0; i < std::min(trace.waits.size(), max_data_items); ++i)
            {
                const exact_wait& w = trace.waits[i];
                out.push_back({{"taker", name(w.taker)}, {"giver", name(w.giver)}, {"forced", w.forced}, {"asked_ms", w.asked_ms}, {"took_ms", w.took_ms}, {"wait_ms", w.total_ms()}, {"interval_ms", w.interval_ms}, {"holder_ms", w.holder_ms}, {"wake_ms", w.wake_ms}, {"take_ms", w.take_ms}});
            }
            return out;
        }

        nl::json data(const exact_trace& trace, const std::vector<const exact_thread*>& shown, const std::vector<convoy>& found)
        {
            nl::json threads = nl::json::array(), lanes = nl::json::array();
            const std::size_t budget = max_data_items / std::max<std::size_t>(1, shown.size());
            for (const exact_thread* t : shown)
            {
                threads.push_back(thread_json(*t, trace.duration_s));
                const std::vector<gil_segment> kept = at_most_turns(t->turns, budget, trace.duration_s * 1e3);
                nl::json spans = nl::json::array();
                for (const gil_segment& s : kept) spans.push_back({{"start_ms", s.start_ms}, {"end_ms", s.end_ms}});
                lanes.push_back({{"name", t->name}, {"ident", t->ident}, {"segments", spans}, {"merged", kept.size() < t->turns.size()}});
            }
            return {{"mode", "exact"}, {"switch_interval_ms", trace.interval_ms}, {"switch_interval_end_ms", trace.interval_end_ms}, {"wall_s", trace.duration_s}, {"handovers", trace.forced + trace.voluntary}, {"forced", trace.forced}, {"voluntary", trace.voluntary}, {"switches", trace.switches}, {"lost", trace.lost}, {"parts_add_up", parts_off(trace) == 0}, {"threads", threads}, {"lanes", lanes}, {"waits", waits_json(trace)}, {"waits_kept", std::min(trace.waits.size(), max_data_items)}, {"convoy", convoy_json(found)}};
        }

        Result exact_result(const exact_trace& trace)
        {
            const std::vector<const exact_thread*> shown = shown_threads(trace);
            const std::vector<convoy> found = convoys(trace);
            Result result;
            result.magic = "gilwatch_exact";
            result.table.title = "gilwatch --exact: every GIL hand-over while the cell ran (" + format_short(trace.duration_s) +
                                 " s, " + count_text(trace.forced + trace.voluntary, "hand-over") + ", " +
                                 count_text(static_cast<std::int64_t>(shown.size()), "thread") + ")";
            result.table.columns = thread_columns();
            for (const exact_thread* t : shown) result.table.rows.push_back(thread_row(*t, trace.duration_s));
            result.table.notes = notes(trace, found);
            if (!trace.waits.empty()) result.more_tables.push_back(parts_table(trace, shown));
            if (shown.empty())
                result.table.notes.push_back("no thread asked for the GIL or let it go while the cell ran: the cell's "
                                             "thread held it throughout.");
            else
                result.chart = timeline(trace, shown);
            result.data = data(trace, shown, found);
            return result;
        }
    }

    option_spec exact_option()
    {
        return {"exact", 0, "", "trace every GIL hand-over exactly (each wait taken apart) instead of sampling"};
    }

    Result measure_exact(const magic_call& call)
    {
        check_call(call);
        const measurement_target target = one_target(call);
        Result result = exact_result(trace_cell(call, target));
        if (!target.is_kernel) result.table.title += " under " + target.info.label();
        add_interpreter_notes(result.table.notes, {target});
        result.data["python"] = target.is_kernel ? "kernel " + target.info.label() : target.info.label();
        result.data["requested"] = target.requested;
        return result;
    }
}
