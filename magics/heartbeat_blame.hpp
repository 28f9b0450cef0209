// %%heartbeat's blame: each late beat of the event loop charged to what the
// loop's thread was doing between the beats (the line it ran or blocked in,
// such as a time.sleep in a coroutine) or, while it waited for the GIL, to
// the holder and its line, from a gil_watch that followed the loop's thread
// (gil_sampler::follow). The result says which lines caused how much stall.
#pragma once

#include <vector>

#include "instruments/blame_places.hpp"
#include "render/result.hpp"

namespace gillab
{
    struct loop_beats
    {
        std::vector<double> tick_ms;  // on the heartbeat's clock (ms since its probe started)
        double start_ms = 0;  // the heartbeat's start: the first gap's beginning
        double every_ms = 0;
        double watch_offset_ms = 0;  // the watch's sampler start on that clock
    };

    // A beat is late when its gap is over twice the period; its stall is the gap less one period.
    void add_heartbeat_blame(Result& result, const gil_watch_record& watch, const watched_cell& cell,
                             const loop_beats& beats);
}
