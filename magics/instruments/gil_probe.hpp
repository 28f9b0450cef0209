// A native GIL probe: one C++ thread that asks for the GIL on a schedule
// (PyGILState_Ensure every period, or time.sleep(0) in a loop that holds it
// between samples) and records when it wanted it, when it got it and when it
// let go, into memory allocated before it starts. It never prints and never
// allocates while running; the shell thread reads and summarises afterwards.
#pragma once

#include <Python.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "base/clock.hpp"
#include "base/stats.hpp"

namespace gillab
{
    // Nanoseconds since the probe started.
    struct gil_sample
    {
        std::int64_t scheduled_ns;  // when it wanted to run
        std::int64_t asked_ns;  // when it asked (PyGILState_Ensure, or time.sleep(0))
        std::int64_t acquired_ns;  // when it had the GIL
        std::int64_t released_ns;  // when it gave it back

        double lateness_ms() const { return (acquired_ns - scheduled_ns) * 1e-6; }
        double wait_ms() const { return (acquired_ns - asked_ns) * 1e-6; }
        double hold_ms() const { return (released_ns - acquired_ns) * 1e-6; }
    };

    // Waits by powers of two of a microsecond: bucket k counts waits in
    // [2^(k-1), 2^k) us (bucket 0: under 1 us). Kept for every acquisition,
    // also after the sample buffer is full.
    inline constexpr std::size_t wait_histogram_buckets = 32;

    struct gil_probe_summary
    {
        std::size_t acquisitions = 0;  // every one, recorded or not
        std::size_t recorded = 0;  // those kept as samples
        double span_s = 0;  // start to stop (or to now)
        summary wait_ms;  // over the recorded samples
        double wait_p95_ms = 0;
        summary lateness_ms;
        double lateness_p95_ms = 0;
        double max_wait_ms = 0;  // over every acquisition
        double total_wait_s = 0;
        double total_hold_s = 0;
        double wait_ratio() const { return span_s > 0 ? total_wait_s / span_s : 0; }
        double hold_ratio() const { return span_s > 0 ? total_hold_s / span_s : 0; }
        std::array<std::uint64_t, wait_histogram_buckets> wait_histogram{};
    };

    nl::json to_json(const gil_probe_summary& s);

    // Fills the sample statistics (wait and lateness: median, quartiles, p95)
    // of `totals` from `samples`; the rest of `totals` (count, span, total
    // wait and hold, longest wait, histogram) covers every acquisition and is
    // kept. gil_probe::summarize uses it, and so does the kernel for samples a
    // Python probe recorded in a child interpreter (python_probe.hpp).
    gil_probe_summary summarize_samples(const std::vector<gil_sample>& samples, gil_probe_summary totals);

    class gil_probe
    {
    public:
        enum class schedule
        {
            periodic,  // sleep `period` after each release, then ask (a thread that wants to run every N ms)
            yield  // time.sleep(0) in a loop holding the GIL: give it back and ask again at once
        };

        // `capacity` samples are allocated (and touched) here, on the caller's thread.
        gil_probe(schedule how, double period_s, std::size_t capacity);
        ~gil_probe();
        gil_probe(const gil_probe&) = delete;
        gil_probe& operator=(const gil_probe&) = delete;

        // Call from a thread that holds the GIL or not; the periodic probe
        // takes the GIL only on its schedule, the yielding one keeps it
        // except inside its sleep(0).
        void start();
        // Joins the probe thread, releasing the GIL meanwhile if the caller
        // holds it (the probe may be waiting for it). Idempotent.
        void stop();
        bool running() const { return m_thread.joinable(); }

        double period_s() const { return m_period_s; }
        schedule how() const { return m_how; }
        monotonic::time_point started_at() const { return m_started; }

        // What was recorded so far (safe while running).
        std::vector<gil_sample> samples() const;
        gil_probe_summary summarize() const;

    private:
        void run();
        void run_periodic();
        void run_yielding();
        void record(const gil_sample& sample);

        schedule m_how;
        double m_period_s;
        std::vector<gil_sample> m_samples;
        std::atomic<std::size_t> m_recorded{0};
        std::atomic<std::uint64_t> m_acquisitions{0};
        std::atomic<std::int64_t> m_total_wait_ns{0};
        std::atomic<std::int64_t> m_total_hold_ns{0};
        std::atomic<std::int64_t> m_max_wait_ns{0};
        std::array<std::atomic<std::uint64_t>, wait_histogram_buckets> m_histogram{};
        std::atomic<bool> m_stop{false};
        std::atomic<std::int64_t> m_stopped_ns{-1};
        monotonic::time_point m_started;
        std::thread m_thread;
        PyObject* m_sleep = nullptr;  // time.sleep and 0.0, for the yield schedule
        PyObject* m_zero = nullptr;
    };

    // Lower bounds of the histogram buckets in ms, for labels.
    double wait_bucket_floor_ms(std::size_t bucket);
}
