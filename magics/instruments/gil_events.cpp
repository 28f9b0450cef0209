#include "instruments/gil_events.hpp"

#include <atomic>
#include <cerrno>
#include <ctime>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "instruments/import_slots.hpp"

namespace
{
    using gillab::gil_event;
    using gillab::gil_event_kind;
    using gillab::gil_wait_outcome;

    constexpr size_t max_threads = 256;
    // Per thread: a second of hand-overs at the shortest interval takes a few thousand.
    constexpr size_t events_per_thread = size_t{1} << 18;

    struct thread_buffer
    {
        std::atomic<uint32_t> count;
        uint32_t lost;
        uint64_t retakes, released_ns;
        unsigned long ident;
        long native_id;
    };

    // One mapping for every trace of the process, never unmapped: a thread
    // still inside a wrapper when a trace stops writes into valid memory.
    struct arena
    {
        thread_buffer buffers[max_threads];
        gil_event* events = nullptr;  // max_threads * events_per_thread
    };

    arena the_arena;
    std::atomic<uint32_t> generation{0};
    std::atomic<uint32_t> next_buffer{0};
    std::atomic<uint64_t> lost_threads{0};
    std::atomic<bool> running{false};
    gillab_gil_fields gil{};

    struct thread_claim
    {
        uint32_t generation = 0;
        int buffer = -1;
    };
    // initial-exec: no allocation or lock on a thread's first access.
    thread_local __attribute__((tls_model("initial-exec"))) thread_claim claim;

    uint64_t now_ns()
    {
        timespec t{};
        clock_gettime(CLOCK_MONOTONIC, &t);
        return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
    }

    int claim_buffer()
    {
        const uint32_t current = generation.load(std::memory_order_acquire);
        if (claim.generation == current) return claim.buffer;
        claim.generation = current;
        const uint32_t index = next_buffer.fetch_add(1);
        if (index >= max_threads)
        {
            claim.buffer = -1;
            return -1;
        }
        thread_buffer& buffer = the_arena.buffers[index];
        buffer.ident = static_cast<unsigned long>(pthread_self());
        buffer.native_id = gettid();
        claim.buffer = static_cast<int>(index);
        return claim.buffer;
    }

    // A take whose thread's last events are its own drop (lock, dropped) and
    // this take's lock, with the GIL's switch count unchanged since the drop:
    // no thread took the GIL in between, so the pair is no hand-over and
    // needs no room. Its three events are taken back and counted instead.
    bool fold_retake(thread_buffer& buffer, const gil_event* events, uint32_t at, uint64_t ns, uint32_t switches)
    {
        if (at < 3 || buffer.lost > 0) return false;  // after a loss the last events kept are not the last ones
        const gil_event& drop_lock = events[at - 3];
        const gil_event& drop = events[at - 2];
        const gil_event& take_lock = events[at - 1];
        if (drop_lock.kind != gil_event_kind::locking || drop.kind != gil_event_kind::dropped ||
            take_lock.kind != gil_event_kind::locking || drop.switch_number != switches)
            return false;
        ++buffer.retakes;
        buffer.released_ns += ns - drop.ns;
        buffer.count.store(at - 3, std::memory_order_release);
        return true;
    }

    // A waiter woken again and again by drops its holder takes back (I/O)
    // keeps only its latest wake: a reader needs the last one and any drop
    // request, so a wake that follows a plain wake overwrites it.
    bool replaces_wake(const thread_buffer& buffer, gil_event* events, uint32_t at, const gil_event& event)
    {
        if (at < 1 || buffer.lost > 0 || event.outcome == gil_wait_outcome::requested) return false;
        gil_event& last = events[at - 1];
        if (last.kind != gil_event_kind::wait_ended || last.outcome == gil_wait_outcome::requested) return false;
        last = event;
        return true;
    }

    void stamp(gil_event_kind kind, gil_wait_outcome outcome = gil_wait_outcome::woken)
    {
        if (!running.load(std::memory_order_relaxed)) return;
        const uint64_t ns = now_ns();
        const int index = claim_buffer();
        if (index < 0)
        {
            lost_threads.fetch_add(1, std::memory_order_relaxed);
            return;
        }
        thread_buffer& buffer = the_arena.buffers[index];
        const uint32_t at = buffer.count.load(std::memory_order_relaxed);
        const auto switches = static_cast<uint32_t>(__atomic_load_n(gil.switch_number, __ATOMIC_RELAXED));
        gil_event* events = the_arena.events + index * events_per_thread;
        const gil_event event{ns, switches, kind, outcome};
        if (kind == gil_event_kind::took && fold_retake(buffer, events, at, ns, switches)) return;
        if (kind == gil_event_kind::wait_ended && replaces_wake(buffer, events, at, event)) return;
        if (at >= events_per_thread)
        {
            ++buffer.lost;
            return;
        }
        events[at] = event;
        buffer.count.store(at + 1, std::memory_order_release);
    }

    template <typename T>
    bool is(const T* object, uintptr_t address)
    {
        return reinterpret_cast<uintptr_t>(object) == address;
    }

    // The wrappers: same signatures as libc's, the real call in the middle.
    extern "C" int traced_mutex_lock(pthread_mutex_t* mutex)
    {
        if (is(mutex, gil.mutex_from)) stamp(gil_event_kind::locking);
        return pthread_mutex_lock(mutex);
    }

    // take_gil's test, made again after the wait returns with the GIL's mutex
    // held: timed out, still locked, and no hand-over meanwhile sets the request.
    extern "C" int traced_cond_timedwait(pthread_cond_t* cond, pthread_mutex_t* mutex, const timespec* until)
    {
        if (!is(cond, gil.cond_from)) return pthread_cond_timedwait(cond, mutex, until);
        const unsigned long before = __atomic_load_n(gil.switch_number, __ATOMIC_RELAXED);
        const int result = pthread_cond_timedwait(cond, mutex, until);
        gil_wait_outcome outcome = gil_wait_outcome::woken;
        if (result == ETIMEDOUT)
        {
            const bool unchanged = __atomic_load_n(gil.locked, __ATOMIC_RELAXED) &&
                                   __atomic_load_n(gil.switch_number, __ATOMIC_RELAXED) == before;
            outcome = unchanged ? gil_wait_outcome::requested : gil_wait_outcome::timed_out;
        }
        stamp(gil_event_kind::wait_ended, outcome);
        return result;
    }

    extern "C" int traced_cond_signal(pthread_cond_t* cond)
    {
        if (is(cond, gil.cond_from)) stamp(gil_event_kind::dropped);
        if (is(cond, gil.switch_cond)) stamp(gil_event_kind::took);
        return pthread_cond_signal(cond);
    }

    extern "C" int traced_cond_wait(pthread_cond_t* cond, pthread_mutex_t* mutex)
    {
        if (!is(cond, gil.switch_cond)) return pthread_cond_wait(cond, mutex);
        stamp(gil_event_kind::yield_began);
        const int result = pthread_cond_wait(cond, mutex);
        stamp(gil_event_kind::yield_ended);
        return result;
    }

    struct hook
    {
        const char* symbol;
        void* wrapper;
        gillab::import_slot slot;
        void* original = nullptr;
    };

    hook hooks[] = {
        {"pthread_mutex_lock", reinterpret_cast<void*>(&traced_mutex_lock), {}},
        {"pthread_cond_timedwait", reinterpret_cast<void*>(&traced_cond_timedwait), {}},
        {"pthread_cond_signal", reinterpret_cast<void*>(&traced_cond_signal), {}},
        {"pthread_cond_wait", reinterpret_cast<void*>(&traced_cond_wait), {}},
    };

    std::string find_slots()
    {
        for (hook& h : hooks)
        {
            h.slot = gillab::import_slot::find(h.symbol);
            if (!h.slot.found()) return h.slot.reason();
        }
        return "";
    }

    void reset_arena()
    {
        if (the_arena.events == nullptr)
        {
            // Reserved, not committed: pages are touched only by threads that stamp.
            void* memory = mmap(nullptr, max_threads * events_per_thread * sizeof(gil_event), PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (memory == MAP_FAILED) return;
            the_arena.events = static_cast<gil_event*>(memory);
        }
        for (thread_buffer& buffer : the_arena.buffers)
        {
            buffer.count.store(0);
            buffer.lost = 0;
            buffer.retakes = 0;
            buffer.released_ns = 0;
        }
        next_buffer.store(0);
        lost_threads.store(0);
    }

    uint64_t started_ns = 0;
    unsigned long started_switches = 0;
}

namespace gillab
{
    std::string start_gil_trace(const gillab_gil_fields& fields)
    {
        if (running.load()) return "a trace of the GIL's hand-overs is already running";
        if (std::string reason = find_slots(); !reason.empty()) return reason;
        reset_arena();
        if (the_arena.events == nullptr) return "no memory for the trace's buffers";
        gil = fields;
        generation.fetch_add(1, std::memory_order_release);
        started_switches = *fields.switch_number;
        started_ns = now_ns();
        running.store(true);
        for (hook& h : hooks) h.original = h.slot.redirect(h.wrapper);
        return "";
    }

    gil_trace stop_gil_trace()
    {
        gil_trace trace;
        if (!running.load()) return trace;
        for (hook& h : hooks) h.slot.redirect(h.original);
        running.store(false);
        trace.started_ns = started_ns;
        trace.stopped_ns = now_ns();
        trace.switches = *gil.switch_number - started_switches;
        trace.lost = lost_threads.load();
        const uint32_t used = std::min<uint32_t>(next_buffer.load(), max_threads);
        for (uint32_t i = 0; i < used; ++i)
        {
            const thread_buffer& buffer = the_arena.buffers[i];
            const gil_event* first = the_arena.events + i * events_per_thread;
            const uint32_t count = buffer.count.load();
            trace.threads.push_back({buffer.ident, buffer.native_id, {first, first + count}, buffer.retakes, buffer.released_ns});
            trace.lost += buffer.lost;
            // Back to the system: a late write by a thread still in a wrapper gets a fresh zero page.
            madvise(const_cast<gil_event*>(first), count * sizeof(gil_event), MADV_DONTNEED);
        }
        return trace;
    }

    bool gil_trace_running()
    {
        return running.load();
    }
}
