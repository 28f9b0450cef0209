// Who held the GIL, slice by slice: two pure-Python threads stamp the clock
// on every loop iteration into arrays allocated before they start. Only the
// GIL holder can stamp, so the merged stamps, cut wherever the stamping
// thread changes, are the ownership segments.
#pragma once

#include <vector>

namespace gillab
{
    struct gil_slice
    {
        int thread;       // 0 or 1
        double start_ms;  // since the window opened
        double end_ms;    // the other thread's first stamp (or this one's last)
        double length_ms() const { return end_ms - start_ms; }
    };

    // Runs both threads for `window_s` (GIL held by the caller, which waits
    // without it; KeyboardInterrupt propagates). At most 1 s.
    std::vector<gil_slice> record_gil_ownership(double window_s);
}
