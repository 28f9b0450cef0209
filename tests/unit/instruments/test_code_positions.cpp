// How blame turns an instruction into a line without the code object: the
// sampler copies co_linetable, and position_at decodes CPython 3.11's table
// format. The known answers are CPython's own co_positions() for the same
// table (a function with short, one-line and multi-line entries).
#include <gtest/gtest.h>

#include "instruments/code_positions.hpp"

namespace gillab
{
    namespace
    {
        // def f(x):
        //     y = x * 2
        //     if y > 3:
        //         return [i for i in range(y)]
        //     return (
        //         x +
        //         y)
        const std::vector<std::uint8_t> f_linetable = {128, 0, 216, 8, 9, 136, 65, 137, 5, 128, 65, 216, 7, 8, 136, 49, 130, 117, 128, 117, 216, 15, 36, 208, 15, 36, 157, 53, 160, 17, 153, 56, 156, 56, 208, 15, 36, 209, 15, 36, 212, 15, 36, 208, 8, 36, 224, 8, 9, 216, 8, 9, 241, 3, 1, 9, 10, 240, 3, 2, 5, 11};
        const std::vector<code_position> f_positions = {
            {1, 1, 0, 0},
            {2, 2, 8, 9},
            {2, 2, 12, 13},
            {2, 2, 8, 13},
            {2, 2, 8, 13},
            {2, 2, 4, 5},
            {3, 3, 7, 8},
            {3, 3, 11, 12},
            {3, 3, 7, 12},
            {3, 3, 7, 12},
            {3, 3, 7, 12},
            {3, 3, 7, 12},
            {4, 4, 15, 36},
            {4, 4, 15, 36},
            {4, 4, 27, 32},
            {4, 4, 27, 32},
            {4, 4, 27, 32},
            {4, 4, 27, 32},
            {4, 4, 27, 32},
            {4, 4, 27, 32},
            {4, 4, 33, 34},
            {4, 4, 27, 35},
            {4, 4, 27, 35},
            {4, 4, 27, 35},
            {4, 4, 27, 35},
            {4, 4, 27, 35},
            {4, 4, 27, 35},
            {4, 4, 27, 35},
            {4, 4, 15, 36},
            {4, 4, 15, 36},
            {4, 4, 15, 36},
            {4, 4, 15, 36},
            {4, 4, 15, 36},
            {4, 4, 15, 36},
            {4, 4, 15, 36},
            {4, 4, 15, 36},
            {4, 4, 8, 36},
            {6, 6, 8, 9},
            {7, 7, 8, 9},
            {6, 7, 8, 9},
            {6, 7, 8, 9},
            {5, 7, 4, 10}};
    }

    TEST(CodePositions, EveryInstructionGetsTheLineAndColumnsCPythonReports)
    {
        ASSERT_EQ(f_positions.size(), 42u);
        for (std::size_t i = 0; i < f_positions.size(); ++i)
        {
            const std::optional<code_position> at = position_at(f_linetable, 1, static_cast<int>(i));
            ASSERT_TRUE(at.has_value()) << i;
            EXPECT_EQ(at->line, f_positions[i].line) << i;
            EXPECT_EQ(at->end_line, f_positions[i].end_line) << i;
            EXPECT_EQ(at->column, f_positions[i].column) << i;
            EXPECT_EQ(at->end_column, f_positions[i].end_column) << i;
        }
    }

    TEST(CodePositions, LinesFollowTheCodeObjectsFirstLine)
    {
        // The same function defined at line 11 of its file: every line moves by ten.
        EXPECT_EQ(position_at(f_linetable, 11, 1)->line, 12);
        EXPECT_EQ(position_at(f_linetable, 11, 41)->end_line, 17);
    }

    TEST(CodePositions, AnInstructionPastTheTableOrATruncatedTableHasNoPosition)
    {
        EXPECT_FALSE(position_at(f_linetable, 1, 42).has_value());
        EXPECT_FALSE(position_at(f_linetable, 1, -1).has_value());
        const std::vector<std::uint8_t> truncated(f_linetable.begin(), f_linetable.begin() + 3);
        EXPECT_FALSE(position_at(truncated, 1, 5).has_value());
        EXPECT_FALSE(position_at({0x01, 0x02}, 1, 0).has_value());  // no entry starts without its top bit
    }
}
