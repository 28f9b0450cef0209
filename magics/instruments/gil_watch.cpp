#include "instruments/gil_watch.hpp"

#include <algorithm>
#include <cmath>

#include <pybind11/pybind11.h>

#include "base/usage_error.hpp"
#include "instruments/switch_interval.hpp"

namespace gillab
{
    namespace
    {
        // The default period follows the switch interval: a thread that wants
        // the GIL forces a hand-over only after waiting one interval, so turns
        // of contending threads last about an interval, and a fifth of it
        // (1 ms at CPython's 5 ms) places their ends within a fifth of a turn
        // at a twentieth of the wake-ups of 50 us, each of which costs the
        // watched code where no core is free (bench/gilwatch_overhead).
        constexpr double period_per_interval = 1.0 / 5;
        constexpr double min_default_period_s = 50e-6;
        constexpr double max_default_period_s = 1e-3;

        std::uint64_t switches(const gillab_gil_fields& fields)
        {
            return __atomic_load_n(fields.switch_number, __ATOMIC_RELAXED);
        }
    }

    double default_watch_period_s()
    {
        return std::clamp(switch_interval_s() * period_per_interval, min_default_period_s, max_default_period_s);
    }

    gil_watch::gil_watch(const std::string& magic, double period_s, bool blame, bool follow_caller)
    {
        if (const char* reason = gillab_gil_attach(&m_fields))
            throw usage_error("%" + magic + ": cannot watch the GIL here: gillab " + reason);
        m_sampler = std::make_unique<gil_sampler>(m_fields, period_s, blame);
        m_registry = std::make_shared<thread_registry>();
        m_registry->on_new_thread([this](std::size_t index, const known_thread& thread) {
            m_wait_slot.resize(index + 1, max_wait_slots);
            m_wait_slot[index] = m_sampler->watch_waits(thread.syscall_fd, thread.address);
        });
        m_registry->capture_live(false);
        m_hook = std::make_unique<thread_start_hook>(m_registry);
        if (follow_caller) m_sampler->follow(gillab_current_thread_state().address);
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
        m_registry->learn(sampling.seen, sampling.seen_complete);
        auto ns = [this](monotonic::time_point t) { return std::chrono::duration_cast<std::chrono::nanoseconds>(t - m_sampler->started_at()).count(); };
        const thread_registry& registry = *m_registry;
        gil_watch_record record;
        record.holders = attribute_runs(sampling, ns(m_opened), ns(closed), registry.threads().size(),
                                        [&registry](std::uintptr_t holder, std::uint64_t last_id) { return registry.resolve(holder, last_id); });
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
        add_blame(sampling, record);
        m_sampler.reset();
        return record;
    }

    void gil_watch::add_blame(const gil_sampling& sampling, gil_watch_record& record) const
    {
        record.blame = m_sampler->blame();
        if (!record.blame) return;
        std::vector<std::size_t> waiter_of_slot(max_wait_slots, thread_registry::unknown);
        for (std::size_t i = 0; i < m_wait_slot.size(); ++i)
            if (m_wait_slot[i] < max_wait_slots) waiter_of_slot[m_wait_slot[i]] = i;
        for (const blame_total& total : sampling.blame)
        {
            const std::size_t waiter = waiter_of_slot.at(total.key.waiter);
            if (waiter == thread_registry::unknown) continue;
            const std::size_t holder = total.key.holder == 0 ? blamed_wait::nobody
                                                             : m_registry->resolve(total.key.holder, total.key.last_thread_id);
            record.blamed.push_back({waiter, holder, total.key.place, total.ns * 1e-9});
        }
        record.codes = sampling.codes;
        record.places = sampling.places;
        record.frame_reads = sampling.frame_reads;
        record.frames_unreadable = sampling.frames_unreadable;
        record.followed = sampling.followed;
        record.sampler_started = m_sampler->started_at();
        for (const followed_sample& s : record.followed)
            record.followed_holders.push_back(s.holder == 0 ? blamed_wait::nobody : m_registry->resolve(s.holder, s.last_thread_id));
    }
}
