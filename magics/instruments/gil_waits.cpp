#include "instruments/gil_waits.hpp"

namespace gillab
{
    void gil_wait_tracker::seen_blocked(std::int64_t t_ns, std::uint64_t switches)
    {
        if (m_waiting) return;  // still the same wait
        m_waiting = true;
        m_since_ns = t_ns;
        m_switches = switches;
        ++m_waits;
    }

    void gil_wait_tracker::sample(std::int64_t t_ns, std::uint64_t switches_before, std::uintptr_t last_holder,
                                  std::uint64_t switches_after)
    {
        if (!m_waiting) return;
        // A hand-over between the two counter reads leaves last_holder unknown.
        const bool consistent = switches_before == switches_after;
        const std::uint64_t moved = switches_after - m_switches;
        if (consistent && (moved == 0 || (moved == 1 && last_holder != m_thread_state)))
        {
            m_switches = switches_after;
            return;
        }
        end(t_ns);
    }

    void gil_wait_tracker::close(std::int64_t t_ns)
    {
        if (m_waiting) end(t_ns);
    }

    void gil_wait_tracker::end(std::int64_t t_ns)
    {
        if (t_ns > m_since_ns) m_waited_ns += t_ns - m_since_ns;
        m_waiting = false;
    }
}
