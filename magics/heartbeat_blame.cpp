#include "heartbeat_blame.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "framework/python_side.hpp"
#include "render/figures.hpp"
#include "render/number_format.hpp"

namespace gillab
{
    namespace
    {
        constexpr double late_factor = 2.0;
        constexpr std::size_t rows_shown = 8;
        constexpr std::size_t max_label_chars = 90;

        struct stall_cause
        {
            bool waited = false;  // waiting for the GIL behind `holder`, else running at `place`
            std::size_t holder = 0;
            place_id place = unknown_place;  // the cause's place with the most stall
            double place_ms = 0;
            double stall_ms = 0;
            std::size_t beats = 0;
            std::size_t last_beat = static_cast<std::size_t>(-1);
        };

        struct moment
        {
            double from_ms, to_ms;
            const followed_sample* sample;
            std::size_t holder;
        };

        std::vector<moment> moments(const gil_watch_record& w, const loop_beats& beats)
        {
            std::vector<moment> out;
            for (std::size_t i = 0; i < w.followed.size(); ++i)
            {
                const double from = beats.watch_offset_ms + w.followed[i].t_ns * 1e-6;
                const double to = i + 1 < w.followed.size() ? beats.watch_offset_ms + w.followed[i + 1].t_ns * 1e-6
                                                            : from + w.period_s * 1e3;
                out.push_back({from, to, &w.followed[i], w.followed_holders[i]});
            }
            return out;
        }

        // Spreads one late beat's stall over the samples between its two ticks, pro rata to their time.
        void charge_beat(std::size_t beat, double from_ms, double to_ms, double stall_ms, const std::vector<moment>& all,
                         const std::vector<place_view>& views, std::map<std::tuple<bool, std::size_t, std::string>, stall_cause>& causes)
        {
            auto first = std::lower_bound(all.begin(), all.end(), from_ms, [](const moment& m, double t) { return m.to_ms <= t; });
            double covered = 0;
            for (auto m = first; m != all.end() && m->from_ms < to_ms; ++m)
                covered += std::min(m->to_ms, to_ms) - std::max(m->from_ms, from_ms);
            if (covered <= 0) return;
            for (auto m = first; m != all.end() && m->from_ms < to_ms; ++m)
            {
                const double share = (std::min(m->to_ms, to_ms) - std::max(m->from_ms, from_ms)) / covered;
                const bool waited = m->sample->waiting;
                const place_id place = waited ? m->sample->holder_place : m->sample->place;
                const place_view& v = view_of(views, place);
                stall_cause& cause = causes[{waited, waited ? m->holder : 0, v.file + "\n" + v.where}];
                cause.waited = waited;
                cause.holder = waited ? m->holder : 0;
                cause.stall_ms += stall_ms * share;
                if (stall_ms * share > cause.place_ms)
                {
                    cause.place = place;
                    cause.place_ms = stall_ms * share;
                }
                if (cause.last_beat != beat)
                {
                    ++cause.beats;
                    cause.last_beat = beat;
                }
            }
        }

        std::vector<stall_cause> rank_causes(const gil_watch_record& w, const loop_beats& beats,
                                             const std::vector<place_view>& views, std::size_t& late, double& stall_ms)
        {
            const std::vector<moment> all = moments(w, beats);
            std::map<std::tuple<bool, std::size_t, std::string>, stall_cause> causes;
            double previous = beats.start_ms;
            late = 0;
            stall_ms = 0;
            for (std::size_t k = 0; k < beats.tick_ms.size(); ++k)
            {
                const double gap = beats.tick_ms[k] - previous;
                if (gap > late_factor * beats.every_ms)
                {
                    ++late;
                    stall_ms += gap - beats.every_ms;
                    charge_beat(k, previous, beats.tick_ms[k], gap - beats.every_ms, all, views, causes);
                }
                previous = beats.tick_ms[k];
            }
            std::vector<stall_cause> ranked;
            for (const auto& [key, cause] : causes) ranked.push_back(cause);
            std::sort(ranked.begin(), ranked.end(), [](const stall_cause& a, const stall_cause& b) { return a.stall_ms > b.stall_ms; });
            return ranked;
        }

        std::string what(const gil_watch_record& w, const stall_cause& cause)
        {
            return cause.waited ? "waited for the GIL behind " + holder_name(w, cause.holder) : "ran / blocked here";
        }

        Table stall_table(const gil_watch_record& w, const std::vector<stall_cause>& ranked, const std::vector<place_view>& views,
                          std::size_t late, double stall_ms, const loop_beats& beats)
        {
            Table table;
            table.title = "blame: what stalled the event loop (" + count_text(static_cast<std::int64_t>(late), "late beat") +
                          ", " + ms_text(std::round(stall_ms)) + " of stall)";
            table.columns = {{"cause", "the loop's thread", ""}, {"at", "at", ""}, {"code", "code", ""}, {"in_c", "in C call", ""}, {"stall", "stall", "ms"}, {"share", "share of stall", "%"}, {"beats", "late beats", ""}};
            for (std::size_t i = 0; i < ranked.size() && i < rows_shown; ++i)
            {
                const stall_cause& c = ranked[i];
                const place_view& v = view_of(views, c.place);
                table.rows.push_back({what(w, c), v.where, v.text, v.calls, c.stall_ms,
                                      stall_ms > 0 ? c.stall_ms / stall_ms * 100 : 0.0, static_cast<std::int64_t>(c.beats)});
            }
            table.notes.push_back("a beat is late when its gap is over " + ms_text(late_factor * beats.every_ms) +
                                  "; its stall (the gap less one period) is shared among the samples of the loop's thread "
                                  "between its two ticks: the line it ran or blocked in, or, while it was proven waiting "
                                  "for the GIL, the holder's line.");
            if (late == 0) table.notes.push_back("no beat was late: nothing stalled the loop.");
            return table;
        }
    }

    void add_heartbeat_blame(Result& result, const gil_watch_record& watch, const watched_cell& cell, const loop_beats& beats)
    {
        const std::vector<place_view> views = python_side::describe_places(watch, cell);
        std::size_t late = 0;
        double stall_ms = 0;
        const std::vector<stall_cause> ranked = rank_causes(watch, beats, views, late, stall_ms);
        result.more_tables.push_back(stall_table(watch, ranked, views, late, stall_ms, beats));
        nl::json causes = nl::json::array();
        for (const stall_cause& c : ranked)
        {
            const place_view& v = view_of(views, c.place);
            causes.push_back({{"cause", c.waited ? "waited for the GIL" : "ran"},
                              {"holder", c.waited ? nl::json(holder_name(watch, c.holder)) : nl::json(nullptr)},
                              {"where", v.where},
                              {"text", v.text},
                              {"function", v.function},
                              {"file", v.file},
                              {"line", v.line < 0 ? nl::json(nullptr) : nl::json(v.line)},
                              {"calls", v.calls.empty() ? nl::json(nullptr) : nl::json(v.calls)},
                              {"label", place_label(v, max_label_chars)},
                              {"stall_ms", c.stall_ms},
                              {"share", stall_ms > 0 ? c.stall_ms / stall_ms : 0.0},
                              {"late_beats", c.beats}});
        }
        result.data["blame"] = causes;
        result.data["late_beats"] = late;
        result.data["stall_ms"] = stall_ms;
    }
}
