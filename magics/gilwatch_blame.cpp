#include "gilwatch_blame.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

#include "framework/python_side.hpp"
#include "instruments/blame_places.hpp"
#include "render/number_format.hpp"

namespace gillab
{
    namespace
    {
        // Lines shown per waiting thread; the rest are summed in one row.
        constexpr std::size_t lines_per_waiter = 6;
        constexpr std::size_t max_label_chars = 90;

        // One line a thread waited behind: a holder at a line (instructions of one line summed).
        struct blamed_line
        {
            std::size_t holder = 0;
            place_id place = unknown_place;  // the line's place with the most time
            double place_s = 0;
            double seconds = 0;
        };

        struct waiter_blame
        {
            std::size_t waiter = 0;
            double seconds = 0;
            std::vector<blamed_line> lines;  // ranked, longest first
        };

        std::vector<waiter_blame> rank(const gil_watch_record& w, const std::vector<place_view>& views)
        {
            std::map<std::size_t, std::map<std::pair<std::size_t, std::string>, blamed_line>> by_waiter;
            for (const blamed_wait& b : w.blamed)
            {
                const place_view& v = view_of(views, b.place);
                blamed_line& line = by_waiter[b.waiter][{b.holder, v.file + "\n" + v.where}];
                line.holder = b.holder;
                line.seconds += b.seconds;
                if (b.seconds > line.place_s)
                {
                    line.place = b.place;
                    line.place_s = b.seconds;
                }
            }
            std::vector<waiter_blame> out;
            for (auto& [waiter, lines] : by_waiter)
            {
                waiter_blame wb{waiter, 0, {}};
                for (auto& [key, line] : lines)
                {
                    wb.seconds += line.seconds;
                    wb.lines.push_back(line);
                }
                std::sort(wb.lines.begin(), wb.lines.end(),
                          [](const blamed_line& a, const blamed_line& b) { return a.seconds > b.seconds; });
                out.push_back(std::move(wb));
            }
            std::sort(out.begin(), out.end(), [](const waiter_blame& a, const waiter_blame& b) { return a.seconds > b.seconds; });
            return out;
        }

        std::string code_text(const place_view& v)
        {
            return v.text.empty() ? (v.function.empty() ? "" : "in " + v.function) : v.text;
        }

        Table blame_table(const gil_watch_record& w, const std::vector<waiter_blame>& ranked,
                          const std::vector<place_view>& views)
        {
            Table table;
            table.title = "blame: whom each thread waited behind for the GIL, and at which line";
            table.columns = {{"waiter", "waiting thread", ""}, {"holder", "behind (holder)", ""}, {"at", "at", ""}, {"code", "code", ""}, {"in_c", "in C call", ""}, {"waited", "waited", "s"}, {"share", "share of its wait", "%"}};
            for (const waiter_blame& wb : ranked)
            {
                double rest_s = 0;
                for (std::size_t i = 0; i < wb.lines.size(); ++i)
                {
                    const blamed_line& line = wb.lines[i];
                    if (i >= lines_per_waiter)
                    {
                        rest_s += line.seconds;
                        continue;
                    }
                    const place_view& v = view_of(views, line.place);
                    table.rows.push_back({w.registry->name(wb.waiter), holder_name(w, line.holder), v.where, code_text(v),
                                          v.calls, line.seconds, wb.seconds > 0 ? line.seconds / wb.seconds * 100 : 0.0});
                }
                if (rest_s > 0)
                    table.rows.push_back({w.registry->name(wb.waiter), "(elsewhere)",
                                          count_text(wb.lines.size() - lines_per_waiter, "more line"), "", "", rest_s,
                                          wb.seconds > 0 ? rest_s / wb.seconds * 100 : 0.0});
            }
            if (ranked.empty()) table.notes.push_back("no thread was proven waiting for the GIL while a holder ran.");
            table.notes.push_back(
                "blame: at each sample that found a thread proven waiting, the holder's innermost Python frame was read "
                "without the GIL (through process_vm_readv on this process, so a frame changing under the read is "
                "'unknown', never a crash) and the time to the next sample charged to that holder and line; 'in C call' "
                "names the call the line's instruction was in when the holder was inside C code called from it.");
            char line[200];
            std::snprintf(line, sizeof line, "frames read: %s, %s of them unreadable (changed while read).",
                          grouped(static_cast<std::int64_t>(w.frame_reads)).c_str(),
                          grouped(static_cast<std::int64_t>(w.frames_unreadable)).c_str());
            table.notes.push_back(line);
            return table;
        }

        nl::json place_json(const place_view& v)
        {
            return {{"where", v.where}, {"text", v.text}, {"function", v.function}, {"file", v.file}, {"line", v.line < 0 ? nl::json(nullptr) : nl::json(v.line)}, {"instruction", v.instruction}, {"calls", v.calls.empty() ? nl::json(nullptr) : nl::json(v.calls)}};
        }

        nl::json blame_json(const gil_watch_record& w, const std::vector<waiter_blame>& ranked,
                            const std::vector<place_view>& views)
        {
            nl::json out = nl::json::array();
            for (const waiter_blame& wb : ranked)
            {
                nl::json behind = nl::json::array();
                for (const blamed_line& line : wb.lines)
                {
                    nl::json entry = place_json(view_of(views, line.place));
                    entry["holder"] = holder_name(w, line.holder);
                    entry["holder_ident"] = line.holder < w.registry->threads().size()
                                                ? nl::json(w.registry->threads()[line.holder].ident)
                                                : nl::json(nullptr);
                    entry["seconds"] = line.seconds;
                    entry["share"] = wb.seconds > 0 ? line.seconds / wb.seconds : 0.0;
                    behind.push_back(entry);
                }
                out.push_back({{"waiter", w.registry->name(wb.waiter)}, {"ident", w.registry->threads()[wb.waiter].ident}, {"blamed_s", wb.seconds}, {"behind", behind}});
            }
            return out;
        }

        // The lanes in the chart's order (gilwatch.cpp's watch_result: by time held, then the unattributed lane).
        std::vector<const holder_figures*> lane_figures(const gil_watch_record& w)
        {
            std::vector<const holder_figures*> rows;
            for (const holder_figures& f : w.holders.threads) rows.push_back(&f);
            std::stable_sort(rows.begin(), rows.end(),
                             [](const holder_figures* a, const holder_figures* b) { return a->held_s > b->held_s; });
            if (w.holders.unattributed.held_s > 0) rows.push_back(&w.holders.unattributed);
            std::vector<const holder_figures*> lanes;
            for (const holder_figures* f : rows)
                if (!f->turns.empty()) lanes.push_back(f);
            return lanes;
        }

        // A drawn bar starts where its first turn does (bars merge neighbouring turns).
        void label_turns(Chart& chart, const gil_watch_record& w, const std::vector<place_view>& views)
        {
            const std::vector<const holder_figures*> lanes = lane_figures(w);
            if (lanes.size() != chart.lanes.size()) return;
            for (ChartSegment& segment : chart.segments)
            {
                const std::vector<gil_segment>& turns = lanes.at(segment.lane)->turns;
                auto turn = std::lower_bound(turns.begin(), turns.end(), segment.start,
                                             [](const gil_segment& t, double start) { return t.start_ms < start; });
                if (turn == turns.end() || turn->place == unknown_place) continue;
                segment.label = place_label(view_of(views, turn->place), max_label_chars);
            }
        }
    }

    void add_blame(Result& result, const gil_watch_record& watch, const watched_cell& cell)
    {
        result.data["blame_on"] = watch.blame;
        if (!watch.blame)
        {
            result.table.notes.push_back("blame: off (--no-blame): holders' lines were not read.");
            return;
        }
        const std::vector<place_view> views = python_side::describe_places(watch, cell);
        const std::vector<waiter_blame> ranked = rank(watch, views);
        result.more_tables.push_back(blame_table(watch, ranked, views));
        result.data["blame"] = blame_json(watch, ranked, views);
        result.data["frame_reads"] = watch.frame_reads;
        result.data["frames_unreadable"] = watch.frames_unreadable;
        if (result.chart) label_turns(*result.chart, watch, views);
    }
}
