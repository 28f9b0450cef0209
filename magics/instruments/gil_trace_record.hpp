// A trace of GIL events (gil_events) read as hand-overs (gil_handovers), as
// plain data: what the kernel's GilTrace tool and the child interpreters'
// trace library (gil_trace_library) both answer with.
#pragma once

#include <nlohmann/json.hpp>

#include "instruments/gil_events.hpp"

namespace gillab
{
    // {"duration_s", "switches", "lost", "forced", "voluntary", "threads": [{"ident", "native_id",
    // "turns", "retakes", "held_s", "waited_s", "requests", "spans": [[start_s, end_s], ...]}], "handovers":
    // [{"taker", "giver" (idents or null), "forced", "asked_s", "took_s", "interval_s", "holder_s",
    // "wake_s", "take_s"}]}; times in seconds since the trace started.
    nlohmann::json gil_trace_record(const gil_trace& trace);
}
