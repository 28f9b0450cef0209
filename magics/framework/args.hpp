// Argument parsing for every magic: one declarative spec per magic gives the
// parser, the usage line, the `%name?` help, and one-line errors that name
// the bad value and what is accepted. CLI11 reads the options; the values are
// typed here, when the magic asks, with the range and default it gives.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/usage_error.hpp"

namespace gillab
{
    struct option_spec
    {
        std::string name;  // long name without dashes: "workers"
        char short_name;  // 'w', or 0 for none
        std::string metavar;  // "N,N,...", empty for a flag
        std::string help;
    };

    class parsed_args
    {
    public:
        bool has(const std::string& name) const;
        std::string text(const std::string& name, const std::string& fallback) const;
        long long integer(const std::string& name, long long fallback, long long min, long long max) const;
        double number(const std::string& name, double fallback, double min, double max) const;
        std::vector<long long> integers(const std::string& name, const std::vector<long long>& fallback,
                                        long long min, long long max) const;
        // "5ms", "200us", "0.2ms", "1s" or a bare number of seconds -> seconds.
        // Comma-separated whole numbers from min to max, or any of `words`; kept as typed.
        std::vector<std::string> integers_or_words(const std::string& name, const std::vector<std::string>& fallback,
                                                   long long min, long long max,
                                                   const std::vector<std::string>& words) const;
        double duration(const std::string& name, double fallback, double min, double max) const;
        // Comma-separated durations ("5ms,1ms,0.2ms") -> seconds.
        std::vector<double> durations(const std::string& name, const std::vector<double>& fallback,
                                      double min, double max) const;
        // One of `accepted`, or several comma-separated when `many`.
        std::vector<std::string> choices(const std::string& name, const std::vector<std::string>& fallback,
                                         const std::vector<std::string>& accepted, bool many) const;
        const std::vector<std::string>& positionals() const;

    private:
        friend class arg_parser;
        std::string m_magic;
        std::map<std::string, std::string> m_values;
        std::vector<std::string> m_positionals;

        [[noreturn]] void fail(const std::string& name, const std::string& value, const std::string& accepted) const;
    };

    class arg_parser
    {
    public:
        arg_parser(std::string magic, std::string summary, std::vector<option_spec> options,
                   std::size_t max_positionals = 0, std::string positional_help = "");

        parsed_args parse(const std::string& line) const;
        std::string usage() const;  // one line
        std::string help() const;  // the docstring `%name?` shows

    private:
        std::string m_magic;
        std::string m_summary;
        std::vector<option_spec> m_options;
        std::size_t m_max_positionals;
        std::string m_positional_help;
        // CLI11's parser for these options, declared on the first parse and
        // reused (shared by copies): declaring it costs four typical parses
        // (bench/args_parse, docs/benchmarks.md).
        struct declared_options;
        std::shared_ptr<declared_options> m_declared;

        void declare() const;
        const option_spec* short_of_a_value(const std::string& last_token) const;
        parsed_args parsed() const;  // the values CLI11 found, as typed
    };

    // Shell-like split: whitespace separates, quotes group, backslash escapes.
    std::vector<std::string> split_arguments(const std::string& line);

    // A typed value as an error message quotes it: short, one line, valid UTF-8.
    std::string shown(const std::string& value);

    // Parses "5ms" / "200us" / "1.5s" / "0.001" into seconds; throws usage_error.
    double parse_duration(const std::string& text);
}
