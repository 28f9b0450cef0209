// What every native measuring thread (the GIL probe, the GIL sampler) does:
// leave signals to the shell thread, sleep precisely, stop promptly.
#pragma once

#include <atomic>

#include "base/clock.hpp"

namespace gillab
{
    // Blocks every signal in the calling thread (SIGINT must break the shell
    // thread's waits), sets a 1 ns timer slack so short sleeps are precise,
    // and names the thread (at most 15 characters) for ps and /proc.
    void become_probe_thread(const char* name);

    // Sleeps until `deadline` on steady_clock's clock; `stop` is checked at
    // least every 5 ms so a stop request is prompt.
    void sleep_until(monotonic::time_point deadline, const std::atomic<bool>& stop);
}
