#include "instruments/thread_registry.hpp"

#include <algorithm>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "instruments/gil_state.h"

namespace gillab
{
    std::size_t thread_registry::record(std::uintptr_t address, std::uint64_t id, unsigned long ident,
                                        unsigned long native_id, bool open_syscall)
    {
        auto found = m_by_id.find(id);
        if (found != m_by_id.end()) return found->second;
        const std::size_t index = m_threads.size();
        known_thread entry;
        entry.address = address;
        entry.id = id;
        entry.ident = ident;
        entry.native_id = native_id;
        entry.thread = py::none();
        // Callers record only live thread states, whose threads are running.
        if (native_id != 0 && open_syscall)
            entry.syscall_fd = open(("/proc/self/task/" + std::to_string(native_id) + "/syscall").c_str(),
                                    O_RDONLY | O_CLOEXEC);
        m_threads.push_back(std::move(entry));
        m_by_id.emplace(id, index);
        m_by_address.emplace(address, index);
        m_resolved.clear();
        if (m_on_new) m_on_new(index, m_threads.back());
        return index;
    }

    thread_registry::~thread_registry()
    {
        for (const known_thread& entry : m_threads)
            if (entry.syscall_fd >= 0) close(entry.syscall_fd);
    }

    void thread_registry::capture_live(bool at_end)
    {
        std::vector<gillab_thread_state> live(64);
        std::size_t count = gillab_live_thread_states(live.data(), live.size());
        if (count > live.size())
        {
            live.resize(count + 64);
            count = std::min(live.size(), gillab_live_thread_states(live.data(), live.size()));
        }
        // The Thread objects by ident, for the names (live thread states only).
        py::dict by_ident;
        for (py::handle thread : py::module_::import("threading").attr("enumerate")())
        {
            py::object ident = thread.attr("ident");
            if (!ident.is_none()) by_ident[ident] = thread;
        }
        const bool at_start = m_threads.empty();
        for (std::size_t i = 0; i < count; ++i)
        {
            const gillab_thread_state& s = live[i];
            known_thread& entry = m_threads[record(s.address, s.id, s.ident, s.native_id)];
            if (at_start) entry.alive_at_start = true;
            if (at_end) entry.alive_at_end = true;
            py::int_ ident(s.ident);
            if (entry.thread.is_none() && by_ident.contains(ident)) entry.thread = by_ident[ident];
        }
        if (at_end) m_resolved.clear();
    }

    void thread_registry::add_current()
    {
        const gillab_thread_state s = gillab_current_thread_state();
        known_thread& entry = m_threads[record(s.address, s.id, s.ident, s.native_id)];
        if (entry.thread.is_none()) entry.thread = py::module_::import("threading").attr("current_thread")();
    }

    void thread_registry::learn(const std::vector<gillab_seen_state>& seen, bool complete)
    {
        for (const gillab_seen_state& s : seen)
        {
            const bool known = m_by_id.count(s.id) != 0;
            // Listed after the thread may have ended: its /proc entry could name another thread.
            const std::size_t index = record(s.address, s.id, s.ident, s.native_id, false);
            if (!known) m_threads[index].seen_only = true;
        }
        m_listed_all = complete;
        m_resolved.clear();
    }

    bool thread_registry::all_known(std::uint64_t after, std::uint64_t through) const
    {
        if (through <= after) return true;
        const auto first = m_by_id.upper_bound(after);
        const auto last = m_by_id.upper_bound(through);
        return static_cast<std::uint64_t>(std::distance(first, last)) == through - after;
    }

    std::size_t thread_registry::resolve(std::uintptr_t address, std::uint64_t last_id) const
    {
        const auto key = std::make_pair(address, last_id);
        if (auto cached = m_resolved.find(key); cached != m_resolved.end()) return cached->second;
        std::size_t best = unknown;
        const auto [first, last] = m_by_address.equal_range(address);
        for (auto it = first; it != last; ++it)
        {
            const known_thread& entry = m_threads[it->second];
            if (entry.id <= last_id && (best == unknown || entry.id > m_threads[best].id)) best = it->second;
        }
        if (best != unknown && !m_threads[best].alive_at_end && !m_listed_all && !all_known(m_threads[best].id, last_id))
            best = unknown;
        m_resolved.emplace(key, best);
        return best;
    }

    std::string thread_registry::name(std::size_t index) const
    {
        const known_thread& entry = m_threads.at(index);
        if (!entry.thread.is_none()) return py::str(entry.thread.attr("name")).cast<std::string>();
        return "thread " + std::to_string(entry.ident);
    }

    // The hook's state outlives the hook: a thread that started while it was
    // installed may run its first event after the watch ended.
    struct thread_start_hook::state
    {
        std::shared_ptr<thread_registry> registry;
        py::object previous;  // threading.gettrace() when installed, put back at uninstall
        bool closed = false;
    };

    thread_start_hook::thread_start_hook(std::shared_ptr<thread_registry> registry)
        : m_state(std::make_shared<state>())
    {
        m_state->registry = std::move(registry);
        py::module_ threading = py::module_::import("threading");
        m_state->previous = threading.attr("gettrace")();
        std::weak_ptr<state> weak = m_state;
        py::object previous = m_state->previous;
        py::cpp_function hook([weak, previous](py::object frame, py::object event, py::object arg) -> py::object {
            std::shared_ptr<state> s = weak.lock();
            if (s && !s->closed) s->registry->add_current();
            // This thread's own trace function: the one it would have had.
            py::module_::import("sys").attr("settrace")(previous);
            if (previous.is_none()) return py::none();
            return previous(frame, event, arg);
        });
        threading.attr("settrace")(hook);
    }

    thread_start_hook::~thread_start_hook()
    {
        m_state->closed = true;
        try
        {
            py::module_::import("threading").attr("settrace")(m_state->previous);
        }
        catch (py::error_already_set& error)
        {
            error.discard_as_unraisable("gillab: restoring threading.settrace");
        }
    }
}
