#include "instruments/probe_thread.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <pthread.h>
#include <sys/prctl.h>

namespace gillab
{
    void become_probe_thread(const char* name)
    {
        sigset_t all;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, nullptr);
        prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
        prctl(PR_SET_NAME, name, 0, 0, 0);
    }

    void sleep_until(monotonic::time_point deadline, const std::atomic<bool>& stop)
    {
        while (!stop.load(std::memory_order_relaxed))
        {
            const auto now = monotonic::now();
            if (now >= deadline) return;
            const auto step = std::min<monotonic::duration>(deadline - now, std::chrono::milliseconds(5));
            const auto wake = std::chrono::duration_cast<std::chrono::nanoseconds>((now + step).time_since_epoch());
            timespec ts{static_cast<time_t>(wake.count() / 1000000000), static_cast<long>(wake.count() % 1000000000)};
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {}
        }
    }
}
