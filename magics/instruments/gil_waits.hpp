// When a thread is provably waiting for the GIL, from CPython's own GIL state.
// A thread the OS shows blocked on the GIL's condition variable is inside
// take_gil(), waiting. It leaves take_gil() only by taking the GIL, and a
// take by a thread state that is not the last holder sets last_holder to it
// and adds one to the switch counter (ceval_gil.c). So while the counter has
// not moved, or has moved by exactly one to a last holder other than the
// thread, it is still waiting, woken and queued for a core included; the
// first sample that cannot show that ends the wait. Each sample's state is
// credited until the next sample, as held times are; a wait is only seen
// from the poll that first finds the thread blocked, so waits are a lower
// bound at their start.
#pragma once

#include <cstdint>

namespace gillab
{
    class gil_wait_tracker
    {
    public:
        gil_wait_tracker() = default;
        explicit gil_wait_tracker(std::uintptr_t thread_state)
            : m_thread_state(thread_state)
        {}

        // The thread's thread-state pointer (the value last_holder holds when it has the GIL).
        std::uintptr_t thread_state() const { return m_thread_state; }
        bool waiting() const { return m_waiting; }

        // The OS showed the thread blocked on the GIL's condition variable at
        // `t_ns`; `switches` was read before that look.
        void seen_blocked(std::int64_t t_ns, std::uint64_t switches);

        // A sample at `t_ns`: the switch counter read before and after last_holder.
        void sample(std::int64_t t_ns, std::uint64_t switches_before, std::uintptr_t last_holder,
                    std::uint64_t switches_after);

        // The watch ends at `t_ns`: an open wait is credited up to it.
        void close(std::int64_t t_ns);

        std::int64_t waited_ns() const { return m_waited_ns; }
        std::uint64_t waits() const { return m_waits; }

    private:
        void end(std::int64_t t_ns);

        std::uintptr_t m_thread_state = 0;
        bool m_waiting = false;
        std::int64_t m_since_ns = 0;
        std::uint64_t m_switches = 0;  // the counter when the wait was last proven
        std::int64_t m_waited_ns = 0;
        std::uint64_t m_waits = 0;  // waits seen (a wait the polls found, until its end)
    };
}
