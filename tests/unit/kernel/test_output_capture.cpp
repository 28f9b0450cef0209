#include <gtest/gtest.h>

#include "output_capture.hpp"

using gillab::incomplete_utf8_suffix;
using gillab::sanitize_utf8;

TEST(SanitizeUtf8, KeepsValidText)
{
    EXPECT_EQ(sanitize_utf8("plain"), "plain");
    EXPECT_EQ(sanitize_utf8("caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x90\x8D"), "caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x90\x8D");
}

TEST(SanitizeUtf8, ReplacesInvalidBytes)
{
    EXPECT_EQ(sanitize_utf8("a\xFF"
                            "b"),
              "a\xEF\xBF\xBD"
              "b");
    EXPECT_EQ(sanitize_utf8("\xC3"), "\xEF\xBF\xBD");  // truncated sequence
    EXPECT_EQ(sanitize_utf8("\x80"), "\xEF\xBF\xBD");  // lone continuation
    EXPECT_EQ(sanitize_utf8(std::string("a\0b", 3)), std::string("a\0b", 3));
}

TEST(IncompleteUtf8Suffix, FindsASequenceCutByARead)
{
    EXPECT_EQ(incomplete_utf8_suffix("abc"), 0u);
    EXPECT_EQ(incomplete_utf8_suffix("ab\xC3"), 1u);
    EXPECT_EQ(incomplete_utf8_suffix("ab\xE2\x9C"), 2u);
    EXPECT_EQ(incomplete_utf8_suffix("ab\xF0\x9F\x90"), 3u);
    EXPECT_EQ(incomplete_utf8_suffix("ab\xE2\x9C\x93"), 0u);
    EXPECT_EQ(incomplete_utf8_suffix(""), 0u);
}
