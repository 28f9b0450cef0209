// In-memory history shaped as the protocol wants it: integer session and
// line numbers, (session, line, input) or (session, line, (input, output)).
// The stock manager numbers every line 1 (it trusts the request's
// execution_count, which clients leave out) and returns strings for numbers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <xeus/xhistory_manager.hpp>

namespace gillab
{
    class history_manager : public xeus::xhistory_manager
    {
    private:
        struct entry
        {
            int line;
            std::string input;
            std::string output;
        };

        void configure_impl() override;
        void store_inputs_impl(int session, int line_num, const std::string& input, const std::string& output) override;
        nl::json get_tail_impl(int n, bool raw, bool output) const override;
        nl::json get_range_impl(int session, int start, int stop, bool raw, bool output) const override;
        nl::json search_impl(const std::string& pattern, bool raw, bool output, int n, bool unique) const override;

        nl::json to_json(const entry& e, bool output) const;

        std::vector<entry> m_entries;
    };

    std::unique_ptr<xeus::xhistory_manager> make_history_manager();
}
