// The clocks every measurement uses: monotonic wall time and process CPU
// time (user + system, reaped children included).
#pragma once

#include <chrono>
#include <sys/resource.h>

namespace gillab
{
    using monotonic = std::chrono::steady_clock;

    inline double seconds_between(monotonic::time_point start, monotonic::time_point end)
    {
        return std::chrono::duration<double>(end - start).count();
    }

    inline double cpu_seconds(int who)
    {
        rusage usage{};
        getrusage(who, &usage);
        auto to_seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
        return to_seconds(usage.ru_utime) + to_seconds(usage.ru_stime);
    }

    // This process and every child it has waited for.
    inline double process_tree_cpu_seconds()
    {
        return cpu_seconds(RUSAGE_SELF) + cpu_seconds(RUSAGE_CHILDREN);
    }
}
