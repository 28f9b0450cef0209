// Who held the GIL, thread by thread, from a gil_sampler's runs: each
// sample's state is credited with the time until the next sample, so held
// times are unbiased while samples fall independently of the watched code
// (docs/magics.md says when a busy machine breaks that); a turn is a stretch of samples
// in which one thread state held the GIL with no hand-over (CPython's switch
// counter unchanged) and no free sample between. Turns that fell between
// two samples are missed: the switch counter still counts their hand-overs,
// which is how many were missed is known.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "instruments/gil_sampler.hpp"

namespace gillab
{
    struct gil_segment
    {
        double start_ms;  // since the window opened
        double end_ms;
        place_id place = unknown_place;  // where the holder spent the longest run of the turn (blame on)
    };

    // At most `limit` of `turns` (in time order) for a lane `window_ms` wide: turns closer than a
    // gap merge into one, the gap doubling from the window's share per turn until they fit.
    std::vector<gil_segment> at_most_turns(const std::vector<gil_segment>& turns, std::size_t limit, double window_ms);

    struct holder_figures
    {
        double held_s = 0;
        std::vector<gil_segment> turns;  // in time order
    };

    struct gil_holders
    {
        std::vector<holder_figures> threads;  // by resolver index
        holder_figures unattributed;  // holders no thread could be proven for
        double window_s = 0;  // what the samples cover (less than asked if truncated)
        double free_s = 0;  // nobody held the GIL
        double contended_s = 0;  // samples that saw a waiter's drop request, credited like the rest
        std::uint64_t samples = 0;  // inside the window
        std::uint64_t handovers_sampled = 0;  // the switch counter's rise over the samples
        std::uint64_t handovers_seen = 0;  // holder changes between consecutive samples
        std::uint64_t missed_turns() const { return handovers_sampled > handovers_seen ? handovers_sampled - handovers_seen : 0; }
    };

    // `resolve(holder, last_thread_id)` gives an index below `thread_count`, or
    // any larger value when the holder cannot be proven. The window is
    // [from_ns, to_ns] on the sampler's clock (ns since it started); the
    // first run is credited from from_ns.
    gil_holders attribute_runs(const gil_sampling& sampling, std::int64_t from_ns, std::int64_t to_ns,
                               std::size_t thread_count,
                               const std::function<std::size_t(std::uintptr_t, std::uint64_t)>& resolve);
}
