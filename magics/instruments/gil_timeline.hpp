// Who held the GIL, turn by turn: two pure-Python threads stamp the clock
// on every loop iteration into arrays allocated before they start. Only the
// GIL holder can stamp, so the stamps give two views of ownership:
// - turns, from the merged stamps cut wherever the stamping thread changes;
// - each thread's held spans, from its own stamps alone (a pause in them
//   ends a span), which overlap only if two threads ran Python at once.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace gillab
{
    struct gil_slice
    {
        int thread;  // 0 or 1
        double start_ms;  // since the window opened
        double end_ms;  // the other thread's first stamp (or this one's last)
        double length_ms() const { return end_ms - start_ms; }
    };

    struct gil_span
    {
        double start_ms;  // the thread's first stamp of the span
        double end_ms;  // its last one
    };

    struct gil_ownership
    {
        std::vector<gil_slice> turns;
        std::array<std::vector<gil_span>, 2> held;  // per thread
        double pause_threshold_ms = 0;  // a longer pause in a thread's own stamps ends a span
        double max_overlap_ms = 0;  // longest time both threads' spans overlapped: 0 under a GIL
    };

    // What the two stamping threads recorded (runners/task_timeline.py, which the magic runs):
    // the clock when the window opened and each thread's stamps, in ns.
    struct gil_stamps
    {
        std::int64_t opened = 0;
        std::array<std::vector<std::int64_t>, 2> own;
    };

    // How many stamps a thread may take in `window_s` (at most 1 s): the recorder's arrays.
    long long timeline_capacity(double window_s);

    // The turns and held spans the stamps show.
    gil_ownership gil_ownership_of(const gil_stamps& stamps);

    // The longest intersection of any span of `a` with any span of `b`
    // (both in time order); 0 when none overlap.
    double max_overlap_ms(const std::vector<gil_span>& a, const std::vector<gil_span>& b);
}
