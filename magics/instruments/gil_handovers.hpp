// A trace of GIL events (gil_events) read as turns and hand-overs. Each wait
// for the GIL is cut at the moments the trace saw, so its parts add up to
// the whole wait exactly:
//   interval  asked .. the waiter's timed wait ran out and it set the drop request
//   holder    .. the holder reached its next check and dropped the GIL
//   wake      .. the operating system ran the waiter again
//   take      .. the waiter held the GIL
// A voluntary hand-over (the holder dropped without being asked: I/O, a
// sleep, a C call) has no interval part: its first part is the holder's.
// A drop its own thread took back with no other thread taking the GIL in
// between (gil_events folds those) stays inside the turn: the turn's held
// time leaves the gap out, its span does not.
#pragma once

#include <cstdint>
#include <vector>

#include "instruments/gil_events.hpp"

namespace gillab
{
    struct gil_wait_parts
    {
        uint64_t interval_ns = 0, holder_ns = 0, wake_ns = 0, take_ns = 0;
        uint64_t total_ns() const { return interval_ns + holder_ns + wake_ns + take_ns; }
    };

    struct gil_handover
    {
        int taker = -1;  // index into the trace's threads
        int giver = -1;  // the thread whose drop let it in; -1 when the trace did not see one
        bool forced = false;  // the taker's request made the giver drop
        uint64_t asked_ns = 0, took_ns = 0;  // since the trace started
        gil_wait_parts parts;  // a take that found the GIL free: all of it is the take part
    };

    // A stretch of holding the GIL, since the trace started.
    struct gil_turn
    {
        uint64_t start_ns = 0, end_ns = 0;
    };

    struct gil_thread_turns
    {
        unsigned long ident = 0;
        long native_id = 0;
        int turns = 0;  // times it took the GIL, re-takes of its own drops aside
        uint64_t retakes = 0;  // drops it took back with no other thread taking the GIL meanwhile
        uint64_t held_ns = 0;  // time between its takes and its drops, re-takes' gaps left out (the trace's start and stop bound a turn under way)
        uint64_t waited_ns = 0;  // time between asking and taking
        int requests = 0;  // drop requests it set
        std::vector<gil_turn> spans;  // each turn in time order, the ones under way at the start and stop included
    };

    struct gil_handovers
    {
        std::vector<gil_handover> handovers;  // takes by a thread other than the last holder, in time order
        std::vector<gil_thread_turns> threads;
        int forced = 0, voluntary = 0;
    };

    gil_handovers read_handovers(const gil_trace& trace);
}
