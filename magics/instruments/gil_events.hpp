// Every GIL hand-over, as it happens: while a trace runs, the interpreter's
// own calls on the GIL's mutex and condition variables (take_gil and drop_gil
// in ceval_gil.c) go through stamping wrappers first (import_slots). Each
// thread writes into a buffer of its own, claimed once with an atomic counter
// and never locked or allocated on the way; every other call passes straight
// through to the real function. A thread that drops the GIL and takes it back
// with no other thread taking it meanwhile (I/O nobody waits behind) writes
// no events for the pair: it is folded into two counters of its log.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "instruments/gil_state.h"

namespace gillab
{
    enum class gil_event_kind : uint8_t
    {
        locking,  // about to lock the GIL's mutex: the start of a take or a drop
        wait_ended,  // a timed wait for the GIL returned (see gil_wait_outcome)
        took,  // now holds the GIL (take_gil signals the switch condition)
        dropped,  // released the GIL (drop_gil signals the GIL's condition)
        yield_began,  // dropped on request and waits for another thread to take it
        yield_ended,  // ... which one has
    };

    enum class gil_wait_outcome : uint8_t
    {
        woken,  // signalled: the GIL was dropped
        timed_out,  // the interval ran out, but the GIL changed hands meanwhile
        requested,  // the interval ran out and this thread set the drop request
    };

    struct gil_event
    {
        uint64_t ns;  // CLOCK_MONOTONIC, as time.perf_counter_ns() reads it
        uint32_t switch_number;  // the GIL's own count of hand-overs, when the event was stamped
        gil_event_kind kind;
        gil_wait_outcome outcome;  // wait_ended only
    };

    struct gil_thread_log
    {
        unsigned long ident;  // pthread_self(), which is threading.get_ident()
        long native_id;
        std::vector<gil_event> events;
        uint64_t retakes = 0;  // drops it took back with no other thread taking the GIL meanwhile
        uint64_t released_ns = 0;  // the time between those drops and re-takes, inside its turns
    };

    struct gil_trace
    {
        std::vector<gil_thread_log> threads;
        uint64_t started_ns = 0, stopped_ns = 0;
        unsigned long switches = 0;  // the GIL's switch_number moved by this much meanwhile
        uint64_t lost = 0;  // events not kept: a buffer was full or too many threads
    };

    // Starts stamping (GIL held). Returns "" or a one-line reason it cannot:
    // another trace running, or an executable that does not make these calls
    // through its import table.
    std::string start_gil_trace(const gillab_gil_fields& fields);

    // Puts the interpreter's calls back and returns what was stamped (GIL held).
    gil_trace stop_gil_trace();

    bool gil_trace_running();
}
