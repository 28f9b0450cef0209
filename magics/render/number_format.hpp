// Numbers as a reader expects them: thousands separators, one number of
// significant digits down a table column, counts with the right plural.
// The text, HTML and every magic's titles and notes use these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "render/result.hpp"

namespace gillab
{
    // Figures keep this many significant digits (whole-number digits are
    // never dropped: 318513.4 is "318,513").
    inline constexpr int significant_digits = 3;

    // "318,513", "-1,024".
    std::string grouped(std::int64_t n);

    // "1 job", "2 jobs", "1,000 jobs"; plural defaults to singular + "s".
    std::string count_text(std::int64_t n, const std::string& singular, const std::string& plural = "");

    // One figure with `digits` significant digits and grouped thousands;
    // "n/a" for NaN, "inf" and "-inf".
    std::string format_figure(double value, int digits = significant_digits);

    // A figure with at most significant_digits, fewer when fewer show it
    // exactly: settings read "5", "0.2", "1,500"; 300.101 reads "300".
    std::string format_short(double value);

    // A table column's cells as text, in order: integers grouped, strings as
    // they are, empty cells empty, and every figure with the same significant
    // digits: significant_digits, or fewer when no figure of the column needs
    // more (intervals of 5, 1 and 0.2 ms stay "5", "1", "0.2").
    // An identifier column (Column::identifier) prints whole numbers bare.
    std::vector<std::string> format_column(const std::vector<Cell>& cells, bool identifier = false);
}
