#include "instruments/gil_probe.hpp"

#include <stdexcept>

#include <sys/prctl.h>

#include <Python.h>

#include "instruments/probe_thread.hpp"

namespace gillab
{
    namespace
    {
        std::int64_t since(monotonic::time_point start)
        {
            return std::chrono::duration_cast<std::chrono::nanoseconds>(monotonic::now() - start).count();
        }

        std::size_t bucket_of(std::int64_t wait_ns)
        {
            std::size_t bucket = 0;
            for (std::int64_t us = wait_ns / 1000; us > 0 && bucket + 1 < wait_histogram_buckets; us >>= 1) ++bucket;
            return bucket;
        }

        void update_max(std::atomic<std::int64_t>& max, std::int64_t value)
        {
            std::int64_t seen = max.load(std::memory_order_relaxed);
            while (value > seen && !max.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {}
        }
    }

    double wait_bucket_floor_ms(std::size_t bucket)
    {
        return bucket == 0 ? 0.0 : static_cast<double>(1ull << (bucket - 1)) * 1e-3;
    }

    gil_probe::gil_probe(schedule how, double period_s, std::size_t capacity)
        : m_how(how)
        , m_period_s(period_s)
        , m_samples(capacity)
    {
    }

    gil_probe::~gil_probe()
    {
        stop();
        if (m_sleep != nullptr && Py_IsInitialized())
        {
            PyGILState_STATE state = PyGILState_Ensure();
            Py_CLEAR(m_sleep);
            Py_CLEAR(m_zero);
            PyGILState_Release(state);
        }
    }

    void gil_probe::start()
    {
        if (running()) return;
        if (m_how == schedule::yield && m_sleep == nullptr)
        {
            PyGILState_STATE state = PyGILState_Ensure();
            PyObject* time = PyImport_ImportModule("time");
            m_sleep = time ? PyObject_GetAttrString(time, "sleep") : nullptr;
            m_zero = PyFloat_FromDouble(0.0);
            Py_XDECREF(time);
            PyGILState_Release(state);
            if (m_sleep == nullptr) throw std::runtime_error("gil_probe: time.sleep is not importable");
        }
        m_stop = false;
        m_started = monotonic::now();
        m_thread = std::thread([this] { run(); });
    }

    void gil_probe::stop()
    {
        if (!running()) return;
        m_stop = true;
        m_stopped_ns = since(m_started);
        if (Py_IsInitialized() && PyGILState_Check())
        {
            PyThreadState* saved = PyEval_SaveThread();
            m_thread.join();
            PyEval_RestoreThread(saved);
        }
        else
        {
            m_thread.join();
        }
    }

    void gil_probe::record(const gil_sample& sample)
    {
        const std::int64_t wait_ns = sample.acquired_ns - sample.asked_ns;
        m_total_wait_ns.fetch_add(wait_ns, std::memory_order_relaxed);
        m_total_hold_ns.fetch_add(sample.released_ns - sample.acquired_ns, std::memory_order_relaxed);
        update_max(m_max_wait_ns, wait_ns);
        m_histogram[bucket_of(wait_ns)].fetch_add(1, std::memory_order_relaxed);
        m_acquisitions.fetch_add(1, std::memory_order_relaxed);
        const std::size_t index = m_recorded.load(std::memory_order_relaxed);
        if (index < m_samples.size())
        {
            m_samples[index] = sample;
            m_recorded.store(index + 1, std::memory_order_release);
        }
    }

    void gil_probe::run_periodic()
    {
        // Between wake-ups the probe holds no GIL: it asks on its schedule
        // and gives the GIL back at once, as a thread woken by a timer does.
        PyThreadState* own = PyEval_SaveThread();
        const auto period = std::chrono::duration_cast<monotonic::duration>(std::chrono::duration<double>(m_period_s));
        auto next = monotonic::now() + period;
        while (!m_stop.load(std::memory_order_relaxed))
        {
            sleep_until(next, m_stop);
            if (m_stop.load(std::memory_order_relaxed)) break;
            gil_sample sample;
            sample.scheduled_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(next - m_started).count();
            sample.asked_ns = since(m_started);
            PyGILState_STATE state = PyGILState_Ensure();
            sample.acquired_ns = since(m_started);
            PyGILState_Release(state);
            sample.released_ns = since(m_started);
            record(sample);
            next = m_started + std::chrono::nanoseconds(sample.released_ns) + period;
        }
        PyEval_RestoreThread(own);
    }

    void gil_probe::run_yielding()
    {
        // A Python loop of time.sleep(0): the GIL is held between samples and
        // given up only inside the sleep, so "asked" is stamped while holding
        // it and the whole queue behind the running thread falls in the wait.
        while (!m_stop.load(std::memory_order_relaxed))
        {
            gil_sample sample;
            sample.scheduled_ns = sample.asked_ns = since(m_started);
            PyObject* slept = PyObject_CallOneArg(m_sleep, m_zero);
            sample.acquired_ns = since(m_started);
            Py_XDECREF(slept);
            if (slept == nullptr) PyErr_Clear();
            sample.released_ns = since(m_started);
            record(sample);
        }
    }

    void gil_probe::run()
    {
        become_probe_thread("gillab-probe");
        // The probe stands for a Python thread, so it keeps a Python thread's
        // timer slack: its sleeps and its timed wait for the GIL then end as
        // late as a Python thread's do (a sleeping waker is late by both), and
        // a zero sleep lasts long enough for a waiting thread to take the GIL.
        prctl(PR_SET_TIMERSLACK, 0UL, 0, 0, 0);
        // One thread state for the probe's whole life: each later
        // acquisition only takes the GIL, allocating nothing.
        PyGILState_STATE outer = PyGILState_Ensure();
        if (m_how == schedule::periodic) run_periodic();
        else run_yielding();
        PyGILState_Release(outer);
    }

    std::vector<gil_sample> gil_probe::samples() const
    {
        const std::size_t count = m_recorded.load(std::memory_order_acquire);
        return {m_samples.begin(), m_samples.begin() + static_cast<std::ptrdiff_t>(count)};
    }

    gil_probe_summary gil_probe::summarize() const
    {
        gil_probe_summary totals;
        totals.acquisitions = m_acquisitions.load();
        const std::int64_t stopped = m_stopped_ns.load();
        totals.span_s = (running() || stopped < 0 ? since(m_started) : stopped) * 1e-9;
        totals.max_wait_ms = m_max_wait_ns.load() * 1e-6;
        totals.total_wait_s = m_total_wait_ns.load() * 1e-9;
        totals.total_hold_s = m_total_hold_ns.load() * 1e-9;
        for (std::size_t b = 0; b < wait_histogram_buckets; ++b) totals.wait_histogram[b] = m_histogram[b].load();
        return summarize_samples(samples(), totals);
    }

    gil_probe_summary summarize_samples(const std::vector<gil_sample>& samples, gil_probe_summary totals)
    {
        gil_probe_summary s = totals;
        s.recorded = samples.size();
        std::vector<double> waits, lateness;
        waits.reserve(samples.size());
        lateness.reserve(samples.size());
        for (const gil_sample& sample : samples)
        {
            waits.push_back(sample.wait_ms());
            lateness.push_back(sample.lateness_ms());
        }
        s.wait_ms = gillab::summarize(waits);
        s.wait_p95_ms = quantile(waits, 0.95);
        s.lateness_ms = gillab::summarize(lateness);
        s.lateness_p95_ms = quantile(lateness, 0.95);
        return s;
    }

    nl::json to_json(const gil_probe_summary& s)
    {
        nl::json histogram = nl::json::array();
        for (std::size_t b = 0; b < wait_histogram_buckets; ++b)
        {
            if (s.wait_histogram[b] == 0) continue;
            histogram.push_back({{"from_ms", wait_bucket_floor_ms(b)},
                                 {"to_ms", b == 0 ? 1e-3 : wait_bucket_floor_ms(b) * 2},
                                 {"count", s.wait_histogram[b]}});
        }
        return {{"acquisitions", s.acquisitions}, {"recorded", s.recorded}, {"span_s", s.span_s}, {"wait_ms", to_json(s.wait_ms)}, {"wait_p95_ms", s.wait_p95_ms}, {"lateness_ms", to_json(s.lateness_ms)}, {"lateness_p95_ms", s.lateness_p95_ms}, {"max_wait_ms", s.max_wait_ms}, {"total_wait_s", s.total_wait_s}, {"total_hold_s", s.total_hold_s}, {"wait_ratio", s.wait_ratio()}, {"hold_ratio", s.hold_ratio()}, {"wait_histogram", histogram}};
    }
}
