#include "framework/args.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cctype>
#include <cstdlib>
#include <sstream>

namespace gillab
{
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

    arg_parser::arg_parser(std::string magic, std::string summary, std::vector<option_spec> options,
                           std::size_t max_positionals, std::string positional_help)
        : m_magic(std::move(magic))
        , m_summary(std::move(summary))
        , m_options(std::move(options))
        , m_max_positionals(max_positionals)
        , m_positional_help(std::move(positional_help))
    {
    }

    const option_spec* arg_parser::find(const std::string& token) const
    {
        for (const option_spec& option : m_options)
        {
            if (token == "--" + option.name || (option.short_name && token == std::string("-") + option.short_name))
            {
                return &option;
            }
        }
        return nullptr;
    }

    parsed_args arg_parser::parse(const std::string& line) const
    {
        parsed_args args;
        args.m_magic = m_magic;
        std::vector<std::string> tokens;
        try
        {
            tokens = split_arguments(line);
        }
        catch (const usage_error& e)
        {
            throw usage_error("%" + m_magic + ": " + e.what() + "; usage: " + usage());
        }
        for (std::size_t i = 0; i < tokens.size(); ++i)
        {
            std::string token = tokens[i];
            std::string inline_value;
            bool has_inline_value = false;
            if (token.rfind("--", 0) == 0 && token.find('=') != std::string::npos)
            {
                inline_value = token.substr(token.find('=') + 1);
                token = token.substr(0, token.find('='));
                has_inline_value = true;
            }
            const bool looks_like_option = token.size() > 1 && token[0] == '-' &&
                                           !(std::isdigit(static_cast<unsigned char>(token[1])) || token[1] == '.');
            if (!looks_like_option)
            {
                if (args.m_positionals.size() >= m_max_positionals)
                {
                    throw usage_error("%" + m_magic + ": unexpected argument " + shown(token) + "; usage: " + usage());
                }
                args.m_positionals.push_back(token);
                continue;
            }
            const option_spec* option = find(token);
            if (option == nullptr)
            {
                throw usage_error("%" + m_magic + ": unknown option " + shown(token) + "; usage: " + usage());
            }
            if (option->metavar.empty())
            {
                if (has_inline_value)
                {
                    throw usage_error("%" + m_magic + ": --" + option->name + " takes no value; usage: " + usage());
                }
                args.m_values[option->name] = "";
                continue;
            }
            if (!has_inline_value)
            {
                if (i + 1 >= tokens.size())
                {
                    throw usage_error("%" + m_magic + ": --" + option->name + " needs a value (" + option->metavar + ")");
                }
                inline_value = tokens[++i];
            }
            args.m_values[option->name] = inline_value;
        }
        return args;
    }

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
