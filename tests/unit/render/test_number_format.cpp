// Numbers as tables print them: separators, significant digits, plurals.
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "render/number_format.hpp"

namespace gillab
{
    TEST(NumberFormat, GroupsThousands)
    {
        EXPECT_EQ(grouped(0), "0");
        EXPECT_EQ(grouped(999), "999");
        EXPECT_EQ(grouped(1000), "1,000");
        EXPECT_EQ(grouped(318513), "318,513");
        EXPECT_EQ(grouped(-1234567), "-1,234,567");
    }

    TEST(NumberFormat, CountsTakeTheRightPlural)
    {
        EXPECT_EQ(count_text(1, "job"), "1 job");
        EXPECT_EQ(count_text(2, "job"), "2 jobs");
        EXPECT_EQ(count_text(0, "job"), "0 jobs");
        EXPECT_EQ(count_text(1000, "run"), "1,000 runs");
        EXPECT_EQ(count_text(1, "process", "processes"), "1 process");
        EXPECT_EQ(count_text(4, "process", "processes"), "4 processes");
    }

    TEST(NumberFormat, FiguresKeepSignificantDigitsAndWholeNumbers)
    {
        EXPECT_EQ(format_figure(318513.4), "318,513");
        EXPECT_EQ(format_figure(1.23456), "1.23");
        EXPECT_EQ(format_figure(0.0123456), "0.0123");
        EXPECT_EQ(format_figure(1.0), "1.00");
        EXPECT_EQ(format_figure(9.996), "10.0");  // rounding carries into a new digit
        EXPECT_EQ(format_figure(-2.5e-3), "-0.00250");
        EXPECT_EQ(format_figure(0.0), "0");
        EXPECT_EQ(format_figure(std::numeric_limits<double>::quiet_NaN()), "n/a");
        EXPECT_EQ(format_figure(-std::numeric_limits<double>::infinity()), "-inf");
        EXPECT_EQ(format_figure(3.2e20), "3.20e+20");
        EXPECT_EQ(format_figure(4e-9), "4.00e-09");
    }

    TEST(NumberFormat, AColumnKeepsOneNumberOfSignificantDigits)
    {
        const std::vector<Cell> walls = {2.31456, 0.51234, 0.0123456, 1.0};
        EXPECT_EQ(format_column(walls), (std::vector<std::string>{"2.31", "0.512", "0.0123", "1.00"}));
        const std::vector<Cell> rates = {318513.4, 1234.5678, 12.0};
        EXPECT_EQ(format_column(rates), (std::vector<std::string>{"318,513", "1,235", "12.0"}));
    }

    TEST(NumberFormat, AColumnOfRoundSettingsStaysShort)
    {
        const std::vector<Cell> intervals = {5.0, 1.0, 0.2};
        EXPECT_EQ(format_column(intervals), (std::vector<std::string>{"5", "1", "0.2"}));
        const std::vector<Cell> mixed = {5.0, 0.25};
        EXPECT_EQ(format_column(mixed), (std::vector<std::string>{"5.0", "0.25"}));
    }

    TEST(NumberFormat, AColumnMixesIntegersStringsAndBlanks)
    {
        const std::vector<Cell> cells = {std::int64_t(12000), std::string("n/a here"), Cell{}, 0.5};
        EXPECT_EQ(format_column(cells), (std::vector<std::string>{"12,000", "n/a here", "", "0.5"}));
        const std::vector<Cell> idents = {std::int64_t(139823456123)};
        EXPECT_EQ(format_column(idents, true), (std::vector<std::string>{"139823456123"}));  // names, not amounts
    }
}
