#include "render/number_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace gillab
{
    namespace
    {
        // Figures this large or this small read better in exponent form.
        constexpr double exponent_above = 1e15;
        constexpr double exponent_below = 1e-6;

        // Groups the digits before the decimal point of a printed number.
        std::string group_digits(const std::string& printed)
        {
            const std::size_t sign = printed.empty() || printed[0] != '-' ? 0 : 1;
            const std::size_t point = std::min(printed.find('.'), printed.size());
            std::string out = printed.substr(0, sign);
            for (std::size_t i = sign; i < point; ++i)
            {
                out += printed[i];
                const std::size_t left = point - i - 1;
                if (left > 0 && left % 3 == 0) out += ',';
            }
            return out + printed.substr(point);
        }

        // The decimal exponent of value once rounded to `digits` significant
        // digits (9.996 at 3 digits is 10.0: exponent 1).
        int rounded_exponent(double value, int digits)
        {
            char text[64];
            std::snprintf(text, sizeof text, "%.*e", digits - 1, value);
            const char* e = std::strchr(text, 'e');
            return e ? std::atoi(e + 1) : 0;
        }

        // Fewest significant digits (at most `most`) that print value exactly.
        int digits_needed(double value, int most)
        {
            for (int digits = 1; digits < most; ++digits)
            {
                char text[64];
                std::snprintf(text, sizeof text, "%.*e", digits - 1, value);
                if (std::fabs(std::strtod(text, nullptr) - value) <= 1e-12 * std::fabs(value)) return digits;
            }
            return most;
        }

        bool ordinary(double value)
        {
            const double magnitude = std::fabs(value);
            return std::isfinite(value) && (magnitude == 0.0 || (magnitude >= exponent_below && magnitude < exponent_above));
        }
    }

    std::string grouped(std::int64_t n)
    {
        return group_digits(std::to_string(n));
    }

    std::string count_text(std::int64_t n, const std::string& singular, const std::string& plural)
    {
        const std::string& word = n == 1 || n == -1 ? singular : (plural.empty() ? singular + "s" : plural);
        return grouped(n) + " " + word;
    }

    std::string format_figure(double value, int digits)
    {
        if (std::isnan(value)) return "n/a";
        if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
        if (value == 0.0) return "0";
        digits = std::clamp(digits, 1, 17);
        char text[400];
        if (!ordinary(value))
        {
            std::snprintf(text, sizeof text, "%.*e", digits - 1, value);
            return text;
        }
        const int decimals = std::max(0, digits - 1 - rounded_exponent(value, digits));
        std::snprintf(text, sizeof text, "%.*f", decimals, value);
        return group_digits(text);
    }

    std::string format_short(double value)
    {
        const bool plain = std::isfinite(value) && value != 0.0;
        return format_figure(value, plain ? digits_needed(value, significant_digits) : significant_digits);
    }

    std::vector<std::string> format_column(const std::vector<Cell>& cells, bool identifier)
    {
        int digits = 1;
        for (const Cell& cell : cells)
        {
            const double* value = std::get_if<double>(&cell);
            if (value && std::isfinite(*value) && *value != 0.0)
                digits = std::max(digits, digits_needed(*value, significant_digits));
        }
        std::vector<std::string> texts;
        texts.reserve(cells.size());
        for (const Cell& cell : cells)
        {
            if (auto* i = std::get_if<std::int64_t>(&cell)) texts.push_back(identifier ? std::to_string(*i) : grouped(*i));
            else if (auto* d = std::get_if<double>(&cell)) texts.push_back(format_figure(*d, digits));
            else if (auto* s = std::get_if<std::string>(&cell)) texts.push_back(*s);
            else texts.emplace_back();
        }
        return texts;
    }
}
