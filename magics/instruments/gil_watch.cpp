#include "instruments/gil_watch.hpp"

#include <cmath>

#include <pybind11/pybind11.h>

#include "base/usage_error.hpp"
#include "instruments/switch_interval.hpp"

namespace gillab
{
    namespace
    {
        std::uint64_t switches(const gillab_gil_fields& fields)
        {
            return __atomic_load_n(fields.switch_number, __ATOMIC_RELAXED);
        }
    }

    gil_watch::gil_watch(const std::string& magic, double period_s)
    {
        if (const char* reason = gillab_gil_attach(&m_fields))
            throw usage_error("%" + magic + ": cannot watch the GIL here: gillab " + reason);
        m_sampler = std::make_unique<gil_sampler>(m_fields, period_s);
        m_registry = std::make_shared<thread_registry>();
        m_registry->on_new_thread([this](std::size_t index, const known_thread& thread)
        {
            m_wait_slot.resize(index + 1, max_wait_slots);
            m_wait_slot[index] = m_sampler->watch_waits(thread.syscall_fd, thread.address);
        });
        m_registry->capture_live(false);
        m_hook = std::make_unique<thread_start_hook>(m_registry);
        m_sampler->start();
        m_cpu_at_open = cpu_seconds(RUSAGE_SELF);
        m_switches_at_open = switches(m_fields);
        m_opened = monotonic::now();
    }

    gil_watch::~gil_watch()
    {
        if (m_sampler) m_sampler->stop();
        m_hook.reset();
        if (m_registry) m_registry->on_new_thread(nullptr);
    }

    gil_watch_record gil_watch::finish()
    {
        const auto closed = monotonic::now();
        const std::uint64_t switches_at_close = switches(m_fields);
        const double cpu_at_close = cpu_seconds(RUSAGE_SELF);
        m_sampler->stop();
        m_hook.reset();
        m_registry->on_new_thread(nullptr);
        m_registry->capture_live(true);

        const gil_sampling sampling = m_sampler->result();
        auto ns = [this](monotonic::time_point t)
        { return std::chrono::duration_cast<std::chrono::nanoseconds>(t - m_sampler->started_at()).count(); };
        const thread_registry& registry = *m_registry;
        gil_watch_record record;
        record.holders = attribute_runs(sampling, ns(m_opened), ns(closed), registry.threads().size(),
                                        [&registry](std::uintptr_t holder, std::uint64_t last_id)
                                        { return registry.resolve(holder, last_id); });
        record.registry = m_registry;
        record.period_s = m_sampler->period_s();
        record.wall_s = seconds_between(m_opened, closed);
        record.sampler_cpu_s = sampling.sampler_cpu_s;
        record.sampler_realtime = sampling.realtime;
        record.cpu_s = std::max(0.0, cpu_at_close - m_cpu_at_open - sampling.sampler_cpu_s);
        record.handovers = switches_at_close - m_switches_at_open;
        record.mean_gap_s = sampling.samples > 1 ? sampling.stopped_ns * 1e-9 / static_cast<double>(sampling.samples) : 0;
        record.max_gap_s = sampling.max_gap_ns * 1e-9;
        record.truncated = sampling.truncated;
        record.switch_interval_s = switch_interval_s();
        record.wait_round_s = sampling.wait_rounds > 0 ? record.holders.window_s / static_cast<double>(sampling.wait_rounds) : 0;
        record.waiting_s.assign(registry.threads().size(), std::nan(""));
        for (std::size_t i = 0; i < m_wait_slot.size() && i < record.waiting_s.size(); ++i)
        {
            const std::size_t slot = m_wait_slot[i];
            if (slot < sampling.waited_s.size()) record.waiting_s[i] = std::min(sampling.waited_s[slot], record.holders.window_s);
        }
        m_sampler.reset();
        return record;
    }
}
