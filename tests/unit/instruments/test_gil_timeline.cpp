// The overlap check behind %switchinterval --timeline: under a GIL two
// threads' held spans never intersect, so any intersection must show.
#include <gtest/gtest.h>

#include "instruments/gil_timeline.hpp"

namespace gillab
{
    TEST(GilTimelineOverlap, DisjointSpansOverlapByNothing)
    {
        EXPECT_EQ(max_overlap_ms({{0, 5}, {10, 15}}, {{5, 10}, {15, 20}}), 0.0);
        EXPECT_EQ(max_overlap_ms({}, {{0, 1}}), 0.0);
    }

    TEST(GilTimelineOverlap, FindsTheLongestIntersectionAnywhere)
    {
        // the longest one comes late, after a span of b that ends first
        EXPECT_DOUBLE_EQ(max_overlap_ms({{0, 5}, {10, 20}}, {{4.5, 6}, {12, 30}}), 8.0);
        EXPECT_DOUBLE_EQ(max_overlap_ms({{0, 100}}, {{1, 2}, {3, 7}, {50, 51}}), 4.0);
    }
}
