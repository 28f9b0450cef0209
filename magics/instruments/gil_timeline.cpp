#include "instruments/gil_timeline.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace gillab
{
    namespace
    {
        // A loop iteration takes well over 0.1 us, so this never fills early.
        constexpr double stamps_per_second = 1e7;
        // A pause in a thread's own stamps longer than this many typical gaps
        // (and at least min_pause_ns) means it was not running.
        constexpr std::int64_t pause_over_typical = 20;
        constexpr std::int64_t min_pause_ns = 2000;
        constexpr std::size_t gap_sample = 100000;  // gaps per thread for the typical one
    }

    long long timeline_capacity(double window_s)
    {
        return static_cast<long long>(window_s * stamps_per_second) + 1000;
    }

    double max_overlap_ms(const std::vector<gil_span>& a, const std::vector<gil_span>& b)
    {
        double longest = 0;
        std::size_t i = 0;
        std::size_t j = 0;
        while (i < a.size() && j < b.size())
        {
            longest = std::max(longest, std::min(a[i].end_ms, b[j].end_ms) - std::max(a[i].start_ms, b[j].start_ms));
            // the span that ends first can meet nothing later in the other list
            if (a[i].end_ms < b[j].end_ms)
                ++i;
            else
                ++j;
        }
        return longest;
    }

    gil_ownership gil_ownership_of(const gil_stamps& stamps)
    {
        const std::int64_t opened = stamps.opened;
        auto ms = [opened](std::int64_t t) { return (t - opened) * 1e-6; };

        gil_ownership ownership;
        const std::array<std::vector<std::int64_t>, 2>& own = stamps.own;

        // A thread's own stamps come a fraction of a microsecond apart while it
        // runs; interrupts pause it for a few. A pause past the threshold ends a
        // held span (an interrupt merely splits one); a hand-over and back inside
        // the threshold would take two thread wake-ups, far longer.
        std::vector<std::int64_t> gaps;
        for (const auto& stamps : own)
        {
            const std::size_t stride = std::max<std::size_t>(1, stamps.size() / gap_sample);
            for (std::size_t i = stride; i < stamps.size(); i += stride) gaps.push_back(stamps[i] - stamps[i - 1]);
        }
        std::int64_t typical_gap_ns = 0;
        if (!gaps.empty())
        {
            std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
            typical_gap_ns = gaps[gaps.size() / 2];
        }
        const std::int64_t pause_ns = std::max<std::int64_t>(min_pause_ns, pause_over_typical * typical_gap_ns);
        ownership.pause_threshold_ms = pause_ns * 1e-6;
        for (int k = 0; k < 2; ++k)
        {
            for (std::size_t i = 0; i < own[k].size(); ++i)
            {
                if (i == 0 || own[k][i] - own[k][i - 1] > pause_ns)
                    ownership.held[k].push_back({ms(own[k][i]), ms(own[k][i])});
                else
                    ownership.held[k].back().end_ms = ms(own[k][i]);
            }
        }
        ownership.max_overlap_ms = max_overlap_ms(ownership.held[0], ownership.held[1]);

        // Turns: walk both (sorted) stamp lists in time order; a turn ends at
        // the other thread's first stamp.
        std::vector<gil_slice>& turns = ownership.turns;
        std::size_t next[2] = {0, 0};
        while (next[0] < own[0].size() || next[1] < own[1].size())
        {
            const int k = next[1] >= own[1].size() || (next[0] < own[0].size() && own[0][next[0]] <= own[1][next[1]]) ? 0 : 1;
            const double t = ms(own[k][next[k]++]);
            if (turns.empty() || turns.back().thread != k)
            {
                if (!turns.empty()) turns.back().end_ms = t;
                turns.push_back({k, t, t});
            }
            else
            {
                turns.back().end_ms = t;
            }
        }
        return ownership;
    }
}
