// A native thread that samples CPython's GIL state at a fixed period without
// taking the GIL: whether it is held, the holder's thread-state pointer (a
// number, never dereferenced), CPython's switch counter and the id of the
// newest thread state (which lets thread_registry prove whose pointer it
// was). Consecutive samples with the same state are kept as one run.
// Every few milliseconds, and after each hand-over (the thread that gave the
// GIL up), it also asks the OS what a known thread is blocked in
// (/proc/self/task/TID/syscall, opened by the thread registry while the thread
// was alive): blocked on the GIL's condition variable starts a wait, which the
// GIL's own state then proves until the thread takes the GIL (gil_waits.hpp);
// a thread proven waiting, or holding the GIL, is not asked.
// Whenever a sample finds thread states newer than it has seen, it first
// lists them (gillab_thread_states_since, before it reads the holder), so
// every thread state that lived at some sample is known by address and id,
// also those native threads make and free for one call (PyGILState_Ensure):
// thread_registry's proof then needs no thread to be seen by Python.
// With blame on, each held sample also reads where the holder is in its
// Python code (holder_frames.hpp), and each proven wait is credited to the
// holder and that place (wait_blame.hpp).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "base/clock.hpp"
#include "instruments/gil_state.h"
#include "instruments/gil_waits.hpp"
#include "instruments/holder_frames.hpp"
#include "instruments/wait_blame.hpp"

namespace gillab
{
    struct gil_run
    {
        std::int64_t start_ns = 0;  // first sample of the run, since the sampler started
        std::uintptr_t holder = 0;  // 0: nobody held the GIL
        std::uint64_t switch_number = 0;  // CPython's count of hand-overs at the run's samples
        std::uint64_t last_thread_id = 0;  // the newest thread state's id, read before the holder
        std::uint32_t samples = 0;
        std::uint32_t contended = 0;  // samples that saw a waiter's drop request
        place_id place = unknown_place;  // where the holder was (blame on), else unknown_place
    };

    // One sample of the thread a sampler follows (%%heartbeat's event-loop thread).
    struct followed_sample
    {
        std::int64_t t_ns = 0;
        place_id place = unknown_place;  // where the followed thread was
        bool waiting = false;  // proven waiting for the GIL
        std::uintptr_t holder = 0;  // the GIL's holder then (0: free)
        std::uint64_t last_thread_id = 0;
        place_id holder_place = unknown_place;
    };

    struct gil_sampling
    {
        std::vector<gil_run> runs;
        std::int64_t stopped_ns = 0;  // the end of the last run
        std::uint64_t samples = 0;
        std::int64_t max_gap_ns = 0;  // longest time between two samples (the sampler was late)
        bool truncated = false;  // the run buffer filled: runs end at stopped_ns
        double sampler_cpu_s = 0;  // the sampler thread's own CPU time
        bool realtime = false;  // it ran at a real-time priority
        std::uint64_t wait_rounds = 0;  // how often the watched threads were asked
        std::uint64_t wait_polls = 0;  // /proc reads over all threads
        std::vector<double> waited_s;  // per watch_waits slot: time proven waiting for the GIL
        std::vector<std::uint64_t> waits;  // ... and how many waits
        // Blame (empty when off): the places gil_run::place and the totals name.
        std::vector<code_copy> codes;
        std::vector<frame_place> places;
        std::vector<blame_total> blame;  // per waiter slot, holder and place: time proven waiting behind it
        std::uint64_t frame_reads = 0;
        std::uint64_t frames_unreadable = 0;
        std::vector<followed_sample> followed;  // follow(): every sample of that thread, in order
        // Every thread state alive when a sample listed the new ones (see above),
        // complete unless more were made than max_seen_states.
        std::vector<gillab_seen_state> seen;
        bool seen_complete = true;
    };

    // Thread states a sampler lists at most over one watch.
    inline constexpr std::size_t max_seen_states = 1 << 16;

    // Threads whose waits are polled at most; later ones are not.
    inline constexpr std::size_t max_wait_slots = 256;

    class gil_sampler
    {
    public:
        // `fields` from gillab_gil_attach (GIL held). `blame`: read the holder's frame at each held sample.
        gil_sampler(const gillab_gil_fields& fields, double period_s, bool blame);
        ~gil_sampler();
        gil_sampler(const gil_sampler&) = delete;
        gil_sampler& operator=(const gil_sampler&) = delete;

        void start();
        // Joins the thread (it never takes the GIL, so the caller may hold it). Idempotent.
        void stop();
        bool running() const { return m_thread.joinable(); }

        // Polls the thread `syscall_fd` describes, whose thread state is
        // `thread_state`, from now on (a caller that holds the GIL). Returns
        // its slot, or max_wait_slots when full.
        std::size_t watch_waits(int syscall_fd, std::uintptr_t thread_state);
        // Before start(), blame on: also records, at every sample, where the thread whose
        // thread state is `thread_state` is and whether it waits (followed_sample).
        void follow(std::uintptr_t thread_state);

        double period_s() const { return m_period_s; }
        bool blame() const { return m_blame_on; }
        monotonic::time_point started_at() const { return m_started; }
        // What was recorded; call after stop().
        gil_sampling result() const;

    private:
        void run();
        gil_run* next_slot();
        // Asks every watched thread (`only` 0) or the one whose thread state is `only`.
        void poll_waits(std::uint64_t switches, bool locked, std::uintptr_t last_holder, std::uintptr_t only);
        // Whether the thread is proven waiting, gone, or not watched.
        bool waiting(std::uintptr_t thread_state) const;
        // Whether a watched thread is proven waiting (false when gone or not watched).
        bool proven_waiting(std::uintptr_t thread_state) const;
        // Notes each proven waiter behind this sample's holder and place.
        void note_waiters(std::size_t watched, std::uintptr_t holder, std::uint64_t last_id, place_id place);
        // Lists the thread states made since the last look (newest id `last_id` read).
        void see_new_states(std::uint64_t last_id);
        void record_followed(std::int64_t t_ns, std::uintptr_t holder, std::uint64_t last_id, place_id holder_place);

        gillab_gil_fields m_fields;
        double m_period_s;
        bool m_blame_on;
        holder_frames m_frames;
        wait_blame m_blame;
        std::uintptr_t m_followed = 0;
        std::vector<followed_sample> m_followed_samples;
        std::vector<std::unique_ptr<gil_run[]>> m_chunks;
        std::size_t m_count = 0;
        gil_sampling m_totals;
        struct wait_slot
        {
            int fd = -1;
            bool gone = false;
            gil_wait_tracker tracker;
        };
        std::array<wait_slot, max_wait_slots> m_waits{};
        std::atomic<std::size_t> m_wait_count{0};  // slots published to the sampler thread
        std::atomic<bool> m_stop{false};
        bool m_realtime = false;
        std::unique_ptr<gillab_seen_state[]> m_seen;
        std::size_t m_seen_count = 0;
        std::uint64_t m_seen_through = 0;  // every id up to it was listed, or gone when listed
        bool m_seen_complete = true;
        monotonic::time_point m_started;
        std::thread m_thread;
    };
}
