#include "history.hpp"

#include <algorithm>
#include <set>

namespace gillab
{
    namespace
    {
        // The only session this kernel knows: the current one.
        constexpr int current_session = 1;

        // IPython's history glob: `*` any run, `?` one character.
        bool glob_match(const char* pattern, const char* text)
        {
            if (*pattern == '\0')
            {
                return *text == '\0';
            }
            if (*pattern == '*')
            {
                return glob_match(pattern + 1, text) || (*text != '\0' && glob_match(pattern, text + 1));
            }
            if (*text != '\0' && (*pattern == '?' || *pattern == *text))
            {
                return glob_match(pattern + 1, text + 1);
            }
            return false;
        }
    }

    void history_manager::configure_impl()
    {
    }

    void history_manager::store_inputs_impl(int, int, const std::string& input, const std::string& output)
    {
        const int line = static_cast<int>(m_entries.size()) + 1;
        m_entries.push_back({line, input, output});
    }

    nl::json history_manager::to_json(const entry& e, bool output) const
    {
        if (output)
        {
            return nl::json::array({current_session, e.line, nl::json::array({e.input, e.output})});
        }
        return nl::json::array({current_session, e.line, e.input});
    }

    nl::json history_manager::get_tail_impl(int n, bool, bool output) const
    {
        nl::json history = nl::json::array();
        const std::size_t count = std::min<std::size_t>(n < 0 ? 0 : n, m_entries.size());
        for (std::size_t i = m_entries.size() - count; i < m_entries.size(); ++i)
        {
            history.push_back(to_json(m_entries[i], output));
        }
        return {{"history", history}, {"status", "ok"}};
    }

    nl::json history_manager::get_range_impl(int session, int start, int stop, bool, bool output) const
    {
        nl::json history = nl::json::array();
        // 0 and negative sessions are relative to the current one (IPython).
        if (session == current_session || session == 0)
        {
            for (const entry& e : m_entries)
            {
                if (e.line >= start && (stop <= 0 || e.line < stop))
                {
                    history.push_back(to_json(e, output));
                }
            }
        }
        return {{"history", history}, {"status", "ok"}};
    }

    nl::json history_manager::search_impl(const std::string& pattern, bool, bool output, int n, bool unique) const
    {
        nl::json history = nl::json::array();
        std::set<std::string> seen;
        for (auto it = m_entries.rbegin(); it != m_entries.rend(); ++it)
        {
            if (n > 0 && static_cast<int>(history.size()) >= n)
            {
                break;
            }
            if (!glob_match(pattern.c_str(), it->input.c_str()))
            {
                continue;
            }
            if (unique && !seen.insert(it->input).second)
            {
                continue;
            }
            history.push_back(to_json(*it, output));
        }
        std::reverse(history.begin(), history.end());
        return {{"history", history}, {"status", "ok"}};
    }

    std::unique_ptr<xeus::xhistory_manager> make_history_manager()
    {
        return std::make_unique<history_manager>();
    }
}
