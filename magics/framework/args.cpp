#include "framework/args.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cctype>
#include <cstdlib>
#include <mutex>
#include <sstream>

#include <CLI/CLI.hpp>

namespace gillab
{
    // Hand-written on purpose, beside CLI11: the values' typing and the line's
    // split. CLI11 2.1's own (tests/unit/test_args.cpp ArgParserReasons shows each)
    // would read 010 as 8 and 0x10 as 16, take 1e999 or an integer overflow as
    // a value, drop the empty item after a trailing comma, and split
    // x'y z' or f\ g apart and take an unclosed quote silently.
    namespace
    {
        std::string join(const std::vector<std::string>& items, const std::string& separator)
        {
            std::string out;
            for (std::size_t i = 0; i < items.size(); ++i)
            {
                out += (i ? separator : "") + items[i];
            }
            return out;
        }

        std::vector<std::string> split_commas(const std::string& text)
        {
            std::vector<std::string> parts;
            std::stringstream in(text);
            std::string part;
            while (std::getline(in, part, ','))
            {
                parts.push_back(part);
            }
            if (!text.empty() && text.back() == ',')
            {
                parts.push_back("");
            }
            return parts;
        }

        bool parse_double(const std::string& text, double& value)
        {
            if (text.empty())
            {
                return false;
            }
            char* end = nullptr;
            errno = 0;
            value = std::strtod(text.c_str(), &end);
            return end == text.c_str() + text.size() && errno == 0 && std::isfinite(value);
        }

        bool parse_integer(const std::string& text, long long& value)
        {
            if (text.empty())
            {
                return false;
            }
            char* end = nullptr;
            errno = 0;
            value = std::strtoll(text.c_str(), &end, 10);
            return end == text.c_str() + text.size() && errno == 0;
        }
    }

    std::string shown(const std::string& value)
    {
        // One short line whatever was typed: cut at a character boundary (a
        // cut UTF-8 sequence would make the whole message undecodable) and
        // control characters (a NUL would end the C string) made visible.
        std::size_t end = std::min<std::size_t>(value.size(), 40);
        while (end < value.size() && end > 0 && (static_cast<unsigned char>(value[end]) & 0xC0) == 0x80)
        {
            --end;
        }
        std::string out;
        for (char c : value.substr(0, end))
        {
            const unsigned char byte = static_cast<unsigned char>(c);
            if (c == '\n' || c == '\r' || c == '\t')
            {
                out += ' ';
            }
            else if (byte < 0x20 || byte == 0x7f)
            {
                const char* hex = "0123456789abcdef";
                out += std::string("\\x") + hex[byte >> 4] + hex[byte & 0xf];
            }
            else
            {
                out += c;
            }
        }
        return "'" + out + (end < value.size() ? "...'" : "'");
    }

    std::vector<std::string> split_arguments(const std::string& line)
    {
        std::vector<std::string> tokens;
        std::string current;
        bool in_token = false;
        char quote = 0;
        for (std::size_t i = 0; i < line.size(); ++i)
        {
            char c = line[i];
            if (quote)
            {
                if (c == quote)
                {
                    quote = 0;
                }
                else
                {
                    current += c;
                }
            }
            else if (c == '\'' || c == '"')
            {
                quote = c;
                in_token = true;
            }
            else if (c == '\\' && i + 1 < line.size())
            {
                current += line[++i];
                in_token = true;
            }
            else if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            {
                if (in_token)
                {
                    tokens.push_back(current);
                    current.clear();
                    in_token = false;
                }
            }
            else
            {
                current += c;
                in_token = true;
            }
        }
        if (quote)
        {
            throw usage_error("unclosed quote " + std::string(1, quote) + " in the arguments");
        }
        if (in_token)
        {
            tokens.push_back(current);
        }
        return tokens;
    }

    double parse_duration(const std::string& text)
    {
        // Divide rather than multiply by 1e-6: 200 / 1e6 is the double nearest
        // 0.0002, 200 * 1e-6 is not (and CPython would store 199 us).
        static const std::vector<std::pair<std::string, double>> units = {
            {"us", 1e6}, {"µs", 1e6}, {"ms", 1e3}, {"s", 1.0}};
        for (const auto& [suffix, divisor] : units)
        {
            if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0)
            {
                double value;
                if (parse_double(text.substr(0, text.size() - suffix.size()), value))
                {
                    return value / divisor;
                }
                throw usage_error("bad duration " + shown(text) + "; accepted: a number with us, ms or s (5ms, 0.2ms, 1s) or plain seconds (0.005)");
            }
        }
        double value;
        if (parse_double(text, value))
        {
            return value;
        }
        throw usage_error("bad duration " + shown(text) + "; accepted: a number with us, ms or s (5ms, 0.2ms, 1s) or plain seconds (0.005)");
    }

    void parsed_args::fail(const std::string& name, const std::string& value, const std::string& accepted) const
    {
        throw usage_error("%" + m_magic + ": bad value " + shown(value) + " for --" + name + "; accepted: " + accepted);
    }

    bool parsed_args::has(const std::string& name) const
    {
        return m_values.count(name) != 0;
    }

    std::string parsed_args::text(const std::string& name, const std::string& fallback) const
    {
        auto it = m_values.find(name);
        return it == m_values.end() ? fallback : it->second;
    }

    long long parsed_args::integer(const std::string& name, long long fallback, long long min, long long max) const
    {
        auto it = m_values.find(name);
        if (it == m_values.end())
        {
            return fallback;
        }
        long long value;
        if (!parse_integer(it->second, value) || value < min || value > max)
        {
            fail(name, it->second, "a whole number from " + std::to_string(min) + " to " + std::to_string(max));
        }
        return value;
    }

    double parsed_args::number(const std::string& name, double fallback, double min, double max) const
    {
        auto it = m_values.find(name);
        if (it == m_values.end())
        {
            return fallback;
        }
        double value;
        if (!parse_double(it->second, value) || value < min || value > max)
        {
            std::ostringstream range;
            range << "a number from " << min << " to " << max;
            fail(name, it->second, range.str());
        }
        return value;
    }

    std::vector<long long> parsed_args::integers(const std::string& name, const std::vector<long long>& fallback,
                                                 long long min, long long max) const
    {
        auto it = m_values.find(name);
        if (it == m_values.end())
        {
            return fallback;
        }
        std::vector<long long> values;
        for (const std::string& part : split_commas(it->second))
        {
            long long value;
            if (!parse_integer(part, value) || value < min || value > max)
            {
                fail(name, part.empty() ? it->second : part,
                     "comma-separated whole numbers from " + std::to_string(min) + " to " + std::to_string(max));
            }
            values.push_back(value);
        }
        return values;
    }

    std::vector<std::string> parsed_args::integers_or_words(const std::string& name, const std::vector<std::string>& fallback,
                                                            long long min, long long max,
                                                            const std::vector<std::string>& words) const
    {
        auto it = m_values.find(name);
        if (it == m_values.end())
        {
            return fallback;
        }
        std::vector<std::string> values;
        for (const std::string& part : split_commas(it->second))
        {
            long long value;
            const bool word = std::find(words.begin(), words.end(), part) != words.end();
            if (!word && (!parse_integer(part, value) || value < min || value > max))
            {
                fail(name, part.empty() ? it->second : part,
                     "comma-separated whole numbers from " + std::to_string(min) + " to " + std::to_string(max) +
                         ", or " + join(words, ", "));
            }
            values.push_back(part);
        }
        return values;
    }

    double parsed_args::duration(const std::string& name, double fallback, double min, double max) const
    {
        auto it = m_values.find(name);
        if (it == m_values.end())
        {
            return fallback;
        }
        double value = 0;
        try
        {
            value = parse_duration(it->second);
        }
        catch (const usage_error&)
        {
            fail(name, it->second, "a duration such as 5ms, 0.2ms, 1s or 0.005");
        }
        if (value < min || value > max)
        {
            std::ostringstream range;
            range << "a duration from " << min * 1e3 << " ms to " << max * 1e3 << " ms";
            fail(name, it->second, range.str());
        }
        return value;
    }

    std::vector<double> parsed_args::durations(const std::string& name, const std::vector<double>& fallback,
                                               double min, double max) const
    {
        auto it = m_values.find(name);
        if (it == m_values.end())
        {
            return fallback;
        }
        std::ostringstream accepted;
        accepted << "comma-separated durations from " << min * 1e3 << " ms to " << max * 1e3 << " ms, such as 5ms,1ms,0.2ms";
        std::vector<double> values;
        for (const std::string& part : split_commas(it->second))
        {
            double value = 0;
            try
            {
                value = parse_duration(part);
            }
            catch (const usage_error&)
            {
                fail(name, part.empty() ? it->second : part, accepted.str());
            }
            if (value < min || value > max)
            {
                fail(name, part, accepted.str());
            }
            values.push_back(value);
        }
        return values;
    }

    std::vector<std::string> parsed_args::choices(const std::string& name, const std::vector<std::string>& fallback,
                                                  const std::vector<std::string>& accepted, bool many) const
    {
        auto it = m_values.find(name);
        if (it == m_values.end())
        {
            return fallback;
        }
        std::vector<std::string> values = many ? split_commas(it->second) : std::vector<std::string>{it->second};
        for (const std::string& value : values)
        {
            bool known = false;
            for (const std::string& option : accepted)
            {
                known = known || option == value;
            }
            if (!known)
            {
                fail(name, value, (many ? "comma-separated, from " : "one of ") + join(accepted, ", "));
            }
        }
        return values;
    }

    const std::vector<std::string>& parsed_args::positionals() const
    {
        return m_positionals;
    }

    // The magic's options as CLI11 declares them; each value is kept as typed
    // (the accessors type it, with the range and default the magic asks for).
    struct arg_parser::declared_options
    {
        std::mutex in_use;  // one parse at a time: CLI11 keeps its results in the App
        std::unique_ptr<CLI::App> app;
        std::vector<CLI::Option*> options;  // in the order of the specs (which copies share)
        CLI::Option* positionals = nullptr;
    };

    arg_parser::arg_parser(std::string magic, std::string summary, std::vector<option_spec> options,
                           std::size_t max_positionals, std::string positional_help)
        : m_magic(std::move(magic))
        , m_summary(std::move(summary))
        , m_options(std::move(options))
        , m_max_positionals(max_positionals)
        , m_positional_help(std::move(positional_help))
        , m_declared(std::make_shared<declared_options>())
    {
    }

    namespace
    {
        // A left-over "-3" or "-.5" is worded as a value, not as an option.
        bool looks_like_option(const std::string& token)
        {
            return token.size() > 1 && token[0] == '-' &&
                   !(std::isdigit(static_cast<unsigned char>(token[1])) || token[1] == '.');
        }
    }

    void arg_parser::declare() const
    {
        declared_options& declared = *m_declared;
        declared.app = std::make_unique<CLI::App>();
        declared.app->set_help_flag();  // no -h: the manual is `%name?`
        for (const option_spec& spec : m_options)
        {
            const std::string names = (spec.short_name ? std::string("-") + spec.short_name + "," : "") + "--" + spec.name;
            CLI::Option* option = spec.metavar.empty() ? declared.app->add_flag(names) : declared.app->add_option(names);
            option->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);  // the last one typed wins
            declared.options.push_back(option);
        }
        if (m_max_positionals > 0)
        {
            // Not required, so up to that many: CLI11 2.1 fills a positional only to its minimum.
            declared.positionals = declared.app->add_option("positionals")->expected(static_cast<int>(m_max_positionals));
            declared.positionals->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
        }
    }

    // CLI11 takes an option's value whatever it looks like, so only the last
    // token can run short of one: "--workers", "-w" or "-vw".
    const option_spec* arg_parser::short_of_a_value(const std::string& last) const
    {
        if (last.empty()) return nullptr;
        const std::string name = last.rfind("--", 0) == 0 ? last.substr(0, last.find('=')) : std::string("-") + last.back();
        const CLI::Option* option = m_declared->app->get_option_no_throw(name);
        for (std::size_t i = 0; i < m_options.size(); ++i)
        {
            if (m_declared->options[i] == option) return &m_options[i];
        }
        return nullptr;
    }

    parsed_args arg_parser::parse(const std::string& line) const
    {
        std::vector<std::string> tokens;
        try
        {
            tokens = split_arguments(line);
        }
        catch (const usage_error& e)
        {
            throw usage_error("%" + m_magic + ": " + e.what() + "; usage: " + usage());
        }
        if (tokens.empty())
        {
            parsed_args nothing;  // most calls: the magic's defaults, without CLI11
            nothing.m_magic = m_magic;
            return nothing;
        }
        std::lock_guard<std::mutex> lock(m_declared->in_use);
        if (!m_declared->app) declare();
        CLI::App& app = *m_declared->app;
        app.clear();
        try
        {
            app.parse(std::vector<std::string>(tokens.rbegin(), tokens.rend()));  // CLI11 wants them reversed
        }
        catch (const CLI::ExtrasError&)
        {
            // Named below, with a "--", which CLI11 takes as the end of the options.
        }
        catch (const CLI::ArgumentMismatch&)
        {
            const option_spec* option = short_of_a_value(tokens.empty() ? "" : tokens.back());
            if (option == nullptr) throw usage_error("%" + m_magic + ": an option needs a value; usage: " + usage());
            throw usage_error("%" + m_magic + ": --" + option->name + " needs a value (" + option->metavar + ")");
        }
        catch (const CLI::ParseError&)
        {
            // No other CLI11 error is reachable with these declarations; its
            // wording would quote the line unshortened, so it is not passed on.
            throw usage_error("%" + m_magic + ": could not read " + shown(line) + "; usage: " + usage());
        }
        const std::vector<std::string> left_over = app.remaining();
        if (!left_over.empty())
        {
            const std::string& first = left_over.front();
            throw usage_error("%" + m_magic + (looks_like_option(first) ? ": unknown option " : ": unexpected argument ") +
                              shown(first) + "; usage: " + usage());
        }
        return parsed();
    }

    parsed_args arg_parser::parsed() const
    {
        parsed_args args;
        args.m_magic = m_magic;
        for (std::size_t i = 0; i < m_options.size(); ++i)
        {
            const option_spec& spec = m_options[i];
            const CLI::Option& option = *m_declared->options[i];
            if (option.count() == 0) continue;
            const std::string& value = option.results().back();
            // CLI11 lets a flag take `=true`; any other inline value is refused here.
            if (spec.metavar.empty() && value != "true")
                throw usage_error("%" + m_magic + ": --" + spec.name + " takes no value; usage: " + usage());
            args.m_values[spec.name] = spec.metavar.empty() ? "" : value;
        }
        if (m_declared->positionals != nullptr) args.m_positionals = m_declared->positionals->results();
        return args;
    }

    // The project's layout, not CLI11's formatter (a command's --help): IPython
    // shows help() as `%name?`, and tests/kernel/test_fuzz_magics.py reads usage().
    std::string arg_parser::usage() const
    {
        std::string out = "%" + m_magic;
        for (const option_spec& option : m_options)
        {
            out += " [--" + option.name + (option.metavar.empty() ? "" : " " + option.metavar) + "]";
        }
        if (m_max_positionals > 0)
        {
            out += " [" + m_positional_help.substr(0, m_positional_help.find(':')) + "]";
        }
        return out;
    }

    std::string arg_parser::help() const
    {
        std::string out = usage() + "\n\n" + m_summary + "\n";
        if (m_max_positionals > 0)
        {
            out += "\n" + m_positional_help + "\n";
        }
        if (!m_options.empty())
        {
            out += "\nOptions:\n";
        }
        for (const option_spec& option : m_options)
        {
            std::string flag = "  --" + option.name + (option.metavar.empty() ? "" : " " + option.metavar);
            if (option.short_name)
            {
                flag += ", -" + std::string(1, option.short_name);
            }
            out += flag + "\n      " + option.help + "\n";
        }
        return out;
    }
}
