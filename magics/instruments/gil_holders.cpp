#include "instruments/gil_holders.hpp"

#include <algorithm>

namespace gillab
{
    gil_holders attribute_runs(const gil_sampling& sampling, std::int64_t from_ns, std::int64_t to_ns,
                               std::size_t thread_count,
                               const std::function<std::size_t(std::uintptr_t, std::uint64_t)>& resolve)
    {
        gil_holders out;
        out.threads.resize(thread_count);
        const std::vector<gil_run>& runs = sampling.runs;
        const std::int64_t end_ns = std::min(to_ns, sampling.truncated ? sampling.stopped_ns : to_ns);
        out.window_s = std::max<std::int64_t>(0, end_ns - from_ns) * 1e-9;
        auto ms = [from_ns](std::int64_t ns) { return (ns - from_ns) * 1e-6; };

        holder_figures* open = nullptr;  // the thread whose turn is running
        const gil_run* open_run = nullptr;  // the run that turn's state came from
        double open_place_s = 0;  // the open turn's longest run, whose place the turn shows
        std::uintptr_t last_holder = 0;  // the holder of the last held sample
        bool first_in_window = true;
        std::uint64_t first_switch = 0;
        std::uint64_t last_switch = 0;
        for (std::size_t i = 0; i < runs.size(); ++i)
        {
            const gil_run& run = runs[i];
            const std::int64_t next = i + 1 < runs.size() ? runs[i + 1].start_ns : sampling.stopped_ns;
            if (next <= from_ns) continue;  // before the window
            const std::int64_t start = first_in_window ? from_ns : run.start_ns;
            const std::int64_t stop = std::min(next, end_ns);
            if (start >= end_ns) break;
            const double length_s = (stop - start) * 1e-9;
            if (first_in_window) first_switch = run.switch_number;
            first_in_window = false;
            last_switch = run.switch_number;
            // The run's samples inside the window, pro rata when it straddles an edge.
            const double inside = run.start_ns >= from_ns && next <= end_ns
                                      ? 1.0
                                      : length_s / std::max(1e-9, (next - run.start_ns) * 1e-9);
            out.samples += static_cast<std::uint64_t>(run.samples * inside + 0.5);
            out.contended_s += length_s * run.contended / std::max<std::uint32_t>(1, run.samples);
            if (run.holder == 0)
            {
                out.free_s += length_s;
                open = nullptr;
                open_run = nullptr;
                continue;
            }
            if (last_holder != 0 && run.holder != last_holder) ++out.handovers_seen;
            last_holder = run.holder;
            const std::size_t index = resolve(run.holder, run.last_thread_id);
            holder_figures& figures = index < thread_count ? out.threads[index] : out.unattributed;
            figures.held_s += length_s;
            const bool same_turn = open == &figures && open_run != nullptr && open_run->holder == run.holder &&
                                   open_run->switch_number == run.switch_number;
            if (same_turn)
                figures.turns.back().end_ms = ms(stop);
            else
            {
                figures.turns.push_back({ms(start), ms(stop), run.place});
                open_place_s = 0;
            }
            if (length_s > open_place_s)
            {
                figures.turns.back().place = run.place;
                open_place_s = length_s;
            }
            open = &figures;
            open_run = &run;
        }
        out.handovers_sampled = last_switch - first_switch;
        return out;
    }

    namespace
    {
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
    }

    std::vector<gil_segment> at_most_turns(const std::vector<gil_segment>& turns, std::size_t limit, double window_ms)
    {
        std::vector<gil_segment> out = turns;
        // The floor keeps the gap growing when the window is empty.
        for (double gap = std::max(window_ms / static_cast<double>(limit), 1e-6); out.size() > limit; gap *= 2)
            out = merged(turns, gap);
        return out;
    }
}
