// One watch of the GIL over a window (a cell, or %gilwatch start to stop):
// the layout check, the thread registry and its start hook, the sampler, and
// the window's wall and CPU clocks and exact hand-over count. Made and
// finished on the shell thread with the GIL held; destroying an unfinished
// watch stops its sampler and removes its hook (errors, interrupt).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "base/clock.hpp"
#include "instruments/gil_holders.hpp"
#include "instruments/gil_sampler.hpp"
#include "instruments/gil_state.h"
#include "instruments/thread_registry.hpp"

namespace gillab
{
    // One waiting thread's time behind one holder at one place (blame on).
    struct blamed_wait
    {
        static constexpr std::size_t nobody = thread_registry::unknown - 1;  // the GIL was free: being woken
        std::size_t waiter = 0;  // registry index
        std::size_t holder = 0;  // registry index, thread_registry::unknown when unproven, or nobody
        place_id place = unknown_place;
        double seconds = 0;
    };

    struct gil_watch_record
    {
        gil_holders holders;
        std::shared_ptr<thread_registry> registry;
        double period_s = 0;
        double wall_s = 0;
        double cpu_s = 0;  // the process's CPU time over the window, the sampler's own excluded
        double sampler_cpu_s = 0;
        bool sampler_realtime = false;  // the sampler ran at a real-time priority
        std::uint64_t handovers = 0;  // CPython's switch counter over the window: exact
        double mean_gap_s = 0;  // achieved time between samples
        double max_gap_s = 0;
        bool truncated = false;
        double switch_interval_s = 0;
        // Per registry entry: time proven waiting for the GIL (gil_waits.hpp;
        // a lower bound), or NaN where its thread could not be polled.
        std::vector<double> waiting_s;
        double wait_round_s = 0;  // achieved time between two rounds of polls
        bool blame = false;  // the holder's frame was read at each held sample
        std::vector<blamed_wait> blamed;
        std::vector<code_copy> codes;  // what places name (gil_sampling's)
        std::vector<frame_place> places;
        std::uint64_t frame_reads = 0;
        std::uint64_t frames_unreadable = 0;
        // follow_caller: the watching thread's samples, and per sample its holder as blamed_wait::holder.
        std::vector<followed_sample> followed;
        std::vector<std::size_t> followed_holders;
        monotonic::time_point sampler_started;  // what followed_sample::t_ns counts from
    };

    // The switch interval / 5, within 50 us to 1 ms (1 ms at CPython's 5 ms).
    double default_watch_period_s();

    class gil_watch
    {
    public:
        // Throws usage_error (prefixed with `magic`) when this interpreter's
        // GIL layout is not the one gillab was built for.
        // `follow_caller` (with blame): also follow the calling thread, sample by sample.
        gil_watch(const std::string& magic, double period_s, bool blame, bool follow_caller = false);
        ~gil_watch();
        gil_watch(const gil_watch&) = delete;
        gil_watch& operator=(const gil_watch&) = delete;

        double period_s() const { return m_sampler->period_s(); }
        gil_watch_record finish();

    private:
        void add_blame(const gil_sampling& sampling, gil_watch_record& record) const;

        gillab_gil_fields m_fields{};
        std::shared_ptr<thread_registry> m_registry;
        std::unique_ptr<thread_start_hook> m_hook;
        std::unique_ptr<gil_sampler> m_sampler;
        std::vector<std::size_t> m_wait_slot;  // per registry entry: its sampler slot
        monotonic::time_point m_opened;
        double m_cpu_at_open = 0;
        std::uint64_t m_switches_at_open = 0;
    };
}
