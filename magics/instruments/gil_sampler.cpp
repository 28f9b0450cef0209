#include "instruments/gil_sampler.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "instruments/probe_thread.hpp"

namespace gillab
{
    namespace
    {
        constexpr std::size_t chunk_runs = 1 << 16;
        // 4M runs (160 MB) is over three minutes of a state change at every
        // 50 us sample; hand-overs every 5 ms fill it in hours.
        constexpr std::size_t max_chunks = 64;

        // Every thread is asked every 2 ms (stretched when many threads make a
        // round costly). After a hand-over, the thread that gave the GIL up is
        // asked at each sample until it is seen waiting (a forced switch sends
        // it straight back to take_gil) or for this many samples.
        constexpr double wait_round_s = 2e-3;
        constexpr double wait_poll_cost_s = 0.2e-3;
        constexpr int released_polls = 16;

        // A followed thread's samples kept at most: over four minutes at the default 1 ms.
        constexpr std::size_t max_followed_samples = 1 << 18;

        // Acquire loads keep the reads in program order (free on x86), which
        // the wait proof's two reads of the switch counter rely on.
        template <typename T>
        T load(const T* address)
        {
            return __atomic_load_n(address, __ATOMIC_ACQUIRE);
        }

        // xorshift64*: uniform in [0, 1), cheap and good enough for spreading sample times.
        struct uniform_jitter
        {
            explicit uniform_jitter(std::uint64_t seed)
                : state(seed | 1)
            {}
            double next()
            {
                state ^= state >> 12;
                state ^= state << 25;
                state ^= state >> 27;
                return static_cast<double>((state * 0x2545F4914F6CDD1DULL) >> 11) * 0x1.0p-53;
            }
            std::uint64_t state;
        };

        std::int64_t ns_since(monotonic::time_point start)
        {
            return std::chrono::duration_cast<std::chrono::nanoseconds>(monotonic::now() - start).count();
        }

        monotonic::duration seconds(double s)
        {
            return std::chrono::duration_cast<monotonic::duration>(std::chrono::duration<double>(s));
        }
    }

    gil_sampler::gil_sampler(const gillab_gil_fields& fields, double period_s, bool blame)
        : m_fields(fields)
        , m_period_s(period_s)
        , m_blame_on(blame)
    {
        if (blame) gillab_frame_reader_init();
        // The first chunk is allocated (and touched) here, not on the sampler thread.
        m_chunks.push_back(std::make_unique<gil_run[]>(chunk_runs));
        m_seen = std::make_unique<gillab_seen_state[]>(max_seen_states);
    }

    gil_sampler::~gil_sampler()
    {
        stop();
    }

    std::size_t gil_sampler::watch_waits(int syscall_fd, std::uintptr_t thread_state)
    {
        const std::size_t slot = m_wait_count.load(std::memory_order_relaxed);
        if (syscall_fd < 0 || slot >= max_wait_slots) return max_wait_slots;
        m_waits[slot] = {syscall_fd, false, gil_wait_tracker(thread_state)};
        m_wait_count.store(slot + 1, std::memory_order_release);
        return slot;
    }

    void gil_sampler::poll_waits(std::uint64_t switches, bool locked, std::uintptr_t last_holder, std::uintptr_t only)
    {
        const std::size_t count = m_wait_count.load(std::memory_order_acquire);
        char line[128];
        for (std::size_t i = 0; i < count; ++i)
        {
            wait_slot& slot = m_waits[i];
            if (only != 0 && slot.tracker.thread_state() != only) continue;
            // Proven waiting already, or holding the GIL: nothing to ask.
            if (slot.gone || slot.tracker.waiting() || (locked && last_holder == slot.tracker.thread_state())) continue;
            const ssize_t n = pread(slot.fd, line, sizeof line - 1, 0);
            if (n <= 0)
            {
                // ESRCH: the thread has ended; EAGAIN: it changed state while asked.
                if (n < 0 && errno == ESRCH) slot.gone = true;
                continue;
            }
            line[n] = '\0';
            ++m_totals.wait_polls;
            // "<syscall number> <first argument, hex> ...", or "running". Only
            // the condition variable: the mutex is also taken by a holder dropping the GIL.
            char* rest = nullptr;
            const long number = std::strtol(line, &rest, 10);
            if (rest == line || number != SYS_futex) continue;
            const auto address = static_cast<std::uintptr_t>(std::strtoull(rest, nullptr, 16));
            if (address >= m_fields.cond_from && address < m_fields.cond_to)
                slot.tracker.seen_blocked(ns_since(m_started), switches);
        }
    }

    bool gil_sampler::waiting(std::uintptr_t thread_state) const
    {
        const std::size_t count = m_wait_count.load(std::memory_order_acquire);
        for (std::size_t i = 0; i < count; ++i)
            if (m_waits[i].tracker.thread_state() == thread_state) return m_waits[i].gone || m_waits[i].tracker.waiting();
        return true;  // not watched: nothing to ask
    }

    bool gil_sampler::proven_waiting(std::uintptr_t thread_state) const
    {
        const std::size_t count = m_wait_count.load(std::memory_order_acquire);
        for (std::size_t i = 0; i < count; ++i)
            if (m_waits[i].tracker.thread_state() == thread_state) return !m_waits[i].gone && m_waits[i].tracker.waiting();
        return false;
    }

    void gil_sampler::note_waiters(std::size_t watched, std::uintptr_t holder, std::uint64_t last_id, place_id place)
    {
        for (std::size_t i = 0; i < watched; ++i)
            if (!m_waits[i].gone && m_waits[i].tracker.waiting())
                m_blame.note({static_cast<std::uint32_t>(i), holder != 0 ? place : unknown_place, holder, last_id});
    }

    void gil_sampler::see_new_states(std::uint64_t last_id)
    {
        if (last_id <= m_seen_through || !m_seen_complete) return;
        const std::size_t room = max_seen_states - m_seen_count;
        const std::size_t count =
            gillab_thread_states_since(&m_fields, m_seen_through, m_seen.get() + m_seen_count, room, &m_seen_through);
        if (count > room) m_seen_complete = false;
        m_seen_count += std::min(count, room);
    }

    void gil_sampler::follow(std::uintptr_t thread_state)
    {
        if (running() || !m_blame_on) return;
        m_followed = thread_state;
        m_followed_samples.reserve(max_followed_samples);
    }

    void gil_sampler::record_followed(std::int64_t t_ns, std::uintptr_t holder, std::uint64_t last_id, place_id holder_place)
    {
        if (m_followed == 0 || m_followed_samples.size() >= max_followed_samples) return;
        followed_sample s{t_ns, holder_place, false, holder, last_id, holder_place};
        if (holder != m_followed)
        {
            s.place = m_frames.place_of(m_followed);
            s.waiting = proven_waiting(m_followed);
        }
        m_followed_samples.push_back(s);
    }

    void gil_sampler::start()
    {
        if (running()) return;
        m_stop = false;
        m_count = 0;
        m_totals = {};
        m_frames = holder_frames();
        m_blame = wait_blame();
        m_followed_samples.clear();
        m_seen_count = 0;
        m_seen_through = 0;
        m_seen_complete = true;
        for (std::size_t i = 0; i < m_wait_count.load(); ++i) m_waits[i].tracker = gil_wait_tracker(m_waits[i].tracker.thread_state());
        m_started = monotonic::now();
        m_thread = std::thread([this] { run(); });
    }

    void gil_sampler::stop()
    {
        if (!running()) return;
        m_stop = true;
        m_thread.join();
    }

    gil_run* gil_sampler::next_slot()
    {
        const std::size_t chunk = m_count / chunk_runs;
        if (chunk == m_chunks.size())
        {
            if (chunk == max_chunks) return nullptr;
            m_chunks.push_back(std::make_unique<gil_run[]>(chunk_runs));
        }
        return &m_chunks[chunk][m_count++ % chunk_runs];
    }

    void gil_sampler::run()
    {
        become_probe_thread("gillab-gilwatch");
        // Where the process may (root, or CAP_SYS_NICE / RLIMIT_RTPRIO), the
        // lowest real-time priority wakes the sampler on time on a busy
        // machine: otherwise it is late exactly while the watched code keeps
        // the cores busy, and those stretches get credited to the state before.
        const sched_param realtime{sched_get_priority_min(SCHED_FIFO)};
        m_realtime = pthread_setschedparam(pthread_self(), SCHED_FIFO, &realtime) == 0;
        const auto period = std::chrono::duration<double, std::nano>(m_period_s * 1e9);
        uniform_jitter jitter(reinterpret_cast<std::uintptr_t>(this) ^ static_cast<std::uintptr_t>(m_started.time_since_epoch().count()));
        auto next = m_started;
        gil_run* current = nullptr;
        std::int64_t last_ns = 0;
        auto next_wait_round = m_started;
        std::uintptr_t current_holder = 0;  // last_holder at the previous sample
        std::uintptr_t released = 0;  // the thread that last gave the GIL up, while it is asked
        int released_left = 0;
        while (!m_stop.load(std::memory_order_relaxed))
        {
            sleep_until(next, m_stop);
            if (m_stop.load(std::memory_order_relaxed)) break;
            // The newest thread-state id first: a thread state with an id up
            // to it existed before the holder was read, which is what
            // thread_registry's proof needs. The switch counter before and
            // after last_holder: equal, the holder read belongs to that count.
            // Any thread state up to that id not listed by now had ended before the holder was read.
            const std::uint64_t last_id = load(m_fields.last_thread_id);
            see_new_states(last_id);
            const std::uint64_t switches_before = load(m_fields.switch_number);
            const bool locked = load(m_fields.locked) == 1;
            const std::uintptr_t last_holder = load(m_fields.last_holder);
            const std::uint64_t switches = load(m_fields.switch_number);
            const bool contended = load(m_fields.drop_request) != 0;
            const std::uintptr_t holder = locked ? last_holder : 0;
            const place_id place = m_blame_on && holder != 0 ? m_frames.place_of(holder) : unknown_place;
            const auto now = monotonic::now();
            const std::int64_t t = std::chrono::duration_cast<std::chrono::nanoseconds>(now - m_started).count();

            if (m_totals.samples > 0 && t - last_ns > m_totals.max_gap_ns) m_totals.max_gap_ns = t - last_ns;
            last_ns = t;
            ++m_totals.samples;
            if (m_blame_on) m_blame.sample(t);
            if (current == nullptr || current->holder != holder || current->switch_number != switches ||
                current->last_thread_id != last_id || current->place != place)
            {
                gil_run* slot = next_slot();
                if (slot == nullptr)
                {
                    m_totals.truncated = true;
                    break;
                }
                *slot = {t, holder, switches, last_id, 0, 0, place};
                current = slot;
            }
            ++current->samples;
            if (contended) ++current->contended;

            const std::size_t watched = m_wait_count.load(std::memory_order_acquire);
            for (std::size_t i = 0; i < watched; ++i) m_waits[i].tracker.sample(t, switches_before, last_holder, switches);
            if (current_holder != 0 && last_holder != current_holder && switches_before == switches)
            {
                released = current_holder;  // it handed the GIL over
                released_left = released_polls;
            }
            current_holder = last_holder;
            if (now >= next_wait_round)
            {
                poll_waits(switches, locked, last_holder, 0);
                ++m_totals.wait_rounds;
                next_wait_round = monotonic::now() +
                                  seconds(std::max(wait_round_s, wait_poll_cost_s * static_cast<double>(watched)));
            }
            else if (released != 0)
            {
                poll_waits(switches, locked, last_holder, released);
            }
            if (released != 0 && (--released_left == 0 || waiting(released) || last_holder == released)) released = 0;
            if (m_blame_on) note_waiters(watched, holder, last_id, place);
            if (m_followed != 0) record_followed(t, holder, last_id, place);
            // Gaps spread evenly over half to one and a half periods, so that
            // samples cannot lock onto the phase of a periodic workload (a
            // thread waking every few ms on the same clock). A late wake-up
            // skips the missed samples instead of bunching them.
            const auto gap = std::chrono::duration_cast<monotonic::duration>(period * (0.5 + jitter.next()));
            next += gap;
            if (next < now) next = now + gap;
        }
        m_totals.stopped_ns = m_totals.truncated ? last_ns : ns_since(m_started);
        if (m_blame_on) m_blame.sample(m_totals.stopped_ns);
        for (std::size_t i = 0; i < m_wait_count.load(); ++i) m_waits[i].tracker.close(m_totals.stopped_ns);
        timespec cpu{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
        m_totals.sampler_cpu_s = static_cast<double>(cpu.tv_sec) + cpu.tv_nsec * 1e-9;
        m_totals.realtime = m_realtime;
    }

    gil_sampling gil_sampler::result() const
    {
        gil_sampling out = m_totals;
        out.runs.reserve(m_count);
        for (std::size_t i = 0; i < m_count; ++i) out.runs.push_back(m_chunks[i / chunk_runs][i % chunk_runs]);
        if (m_blame_on)
        {
            out.codes = m_frames.codes();
            out.places = m_frames.places();
            out.blame = m_blame.totals();
            out.frame_reads = m_frames.reads();
            out.frames_unreadable = m_frames.unreadable();
            out.followed = m_followed_samples;
        }
        out.seen.assign(m_seen.get(), m_seen.get() + m_seen_count);
        out.seen_complete = m_seen_complete;
        for (std::size_t i = 0; i < m_wait_count.load(); ++i)
        {
            out.waited_s.push_back(static_cast<double>(m_waits[i].tracker.waited_ns()) * 1e-9);
            out.waits.push_back(m_waits[i].tracker.waits());
        }
        return out;
    }
}
