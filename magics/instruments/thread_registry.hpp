// Which Python thread a GIL holder's thread-state pointer belonged to, proven
// rather than guessed: a thread state's memory may be freed and reused by a
// later thread, so a pointer alone names nobody. The registry records thread
// states only while holding the GIL (the live list at start and end, and each
// new threading.Thread as it starts, through threading.settrace), each with
// CPython's per-interpreter id, which grows by one per thread state created.
// A sample saw pointer P after reading N, the newest id at the time; the
// entry at P with the largest id I <= N was P's occupant then if
//   - it was still alive at the end (alive from its creation, before the
//     sample, until then, and two thread states never share an address), or
//   - every id in (I, N] is known and none of them lived at P.
// Otherwise the sample stays unattributed. When the samples came from a
// sampler that listed every new thread state before it read a holder
// (gil_sampler.hpp; learn()), an id in (I, N] it never saw alive had ended
// before the sample, so the first condition's alternative always holds: the
// entry with the largest id I <= N at P is the occupant. That covers thread
// states that native threads make and free for each call into Python
// (PyGILState_Ensure, pybind11's gil_scoped_acquire), which no Python hook sees.
// Nothing here dereferences a pointer it did not get from a live thread
// state under the GIL or under the runtime's thread-list lock.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>

#include "instruments/gil_state.h"

namespace gillab
{
    namespace py = pybind11;

    struct known_thread
    {
        std::uintptr_t address = 0;
        std::uint64_t id = 0;
        unsigned long ident = 0;
        unsigned long native_id = 0;
        py::object thread;  // its threading.Thread, or None for a thread threading does not know
        bool alive_at_start = false;
        bool alive_at_end = false;
        bool seen_only = false;  // known only from a sampler's listing (a native thread's state)
        // /proc/self/task/<native_id>/syscall, opened while the thread was
        // surely alive (so a reused thread id cannot name another thread); -1 if none.
        int syscall_fd = -1;
    };

    class thread_registry
    {
    public:
        static constexpr std::size_t unknown = std::numeric_limits<std::size_t>::max();

        thread_registry() = default;
        ~thread_registry();  // closes the syscall files
        thread_registry(const thread_registry&) = delete;
        thread_registry& operator=(const thread_registry&) = delete;

        // Called for each thread as it is first recorded (GIL held).
        void on_new_thread(std::function<void(std::size_t index, const known_thread&)> callback)
        {
            m_on_new = std::move(callback);
        }

        // Records the live thread states (GIL held); `at_end` marks the ones
        // alive when the watch stops.
        void capture_live(bool at_end);
        // Records the calling thread's state (GIL held).
        void add_current();
        // Records the thread states a sampler listed (gil_sampling::seen); `complete`: it
        // listed every one before the samples that could name it, so none is missing.
        void learn(const std::vector<gillab_seen_state>& seen, bool complete);

        // The entry that held `address` when a sample read `last_id`, or unknown.
        std::size_t resolve(std::uintptr_t address, std::uint64_t last_id) const;

        const std::vector<known_thread>& threads() const { return m_threads; }
        // Its name for people: the threading.Thread's name, else "thread <ident>".
        std::string name(std::size_t index) const;

    private:
        std::size_t record(std::uintptr_t address, std::uint64_t id, unsigned long ident, unsigned long native_id,
                           bool open_syscall = true);
        bool all_known(std::uint64_t after, std::uint64_t through) const;

        std::function<void(std::size_t, const known_thread&)> m_on_new;
        std::vector<known_thread> m_threads;
        std::map<std::uint64_t, std::size_t> m_by_id;
        std::multimap<std::uintptr_t, std::size_t> m_by_address;
        bool m_listed_all = false;  // learn(..., true)
        mutable std::map<std::pair<std::uintptr_t, std::uint64_t>, std::size_t> m_resolved;
    };

    // Registers every threading.Thread that starts while it is installed,
    // from inside the new thread, through threading.settrace (chained to a
    // trace hook already set, which is put back at uninstall). The hook
    // removes itself from each thread after its first event, so it costs one
    // call per thread.
    class thread_start_hook
    {
    public:
        explicit thread_start_hook(std::shared_ptr<thread_registry> registry);  // GIL held
        ~thread_start_hook();  // GIL held
        thread_start_hook(const thread_start_hook&) = delete;
        thread_start_hook& operator=(const thread_start_hook&) = delete;

    private:
        struct state;
        std::shared_ptr<state> m_state;
    };
}
