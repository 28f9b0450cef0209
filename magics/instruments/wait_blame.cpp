#include "instruments/wait_blame.hpp"

namespace gillab
{
    void wait_blame::sample(std::int64_t t_ns)
    {
        const std::int64_t credit = t_ns - m_last_ns;
        if (credit > 0)
            for (const blame_key& key : m_pending) m_ns[key] += credit;
        m_pending.clear();
        m_last_ns = t_ns;
    }

    std::vector<blame_total> wait_blame::totals() const
    {
        std::vector<blame_total> out;
        out.reserve(m_ns.size());
        for (const auto& [key, ns] : m_ns) out.push_back({key, ns});
        return out;
    }
}
