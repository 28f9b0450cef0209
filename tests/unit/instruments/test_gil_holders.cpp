// How %%gilwatch turns the sampler's runs into each thread's held time and
// turns: time credited to the state until the next sample, turns cut at
// hand-overs and free samples, hand-overs no sample saw counted as missed.
#include <gtest/gtest.h>

#include "instruments/gil_holders.hpp"

namespace gillab
{
    namespace
    {
        constexpr std::uintptr_t A = 0x1000;
        constexpr std::uintptr_t B = 0x2000;
        constexpr std::int64_t us = 1000;

        // A -> 0, B -> 1, anything else unproven.
        std::size_t resolve(std::uintptr_t holder, std::uint64_t)
        {
            return holder == A ? 0 : holder == B ? 1
                                                 : 99;
        }

        gil_sampling sampling(std::vector<gil_run> runs, std::int64_t stopped_ns)
        {
            gil_sampling s;
            s.runs = std::move(runs);
            s.stopped_ns = stopped_ns;
            return s;
        }
    }

    TEST(GilHolders, CreditsEachRunUntilTheNextSampleAndCutsTurnsAtHandovers)
    {
        // A holds 0-100 us, B 100-300 us, A again 300-400 us: three turns, two hand-overs.
        const gil_holders h = attribute_runs(sampling({{0, A, 1, 5, 2, 0}, {100 * us, B, 2, 5, 4, 4}, {300 * us, A, 3, 5, 2, 0}},
                                                      400 * us),
                                             0, 400 * us, 2, resolve);
        EXPECT_NEAR(h.threads[0].held_s, 200e-6, 1e-12);
        EXPECT_NEAR(h.threads[1].held_s, 200e-6, 1e-12);
        ASSERT_EQ(h.threads[0].turns.size(), 2u);
        ASSERT_EQ(h.threads[1].turns.size(), 1u);
        EXPECT_DOUBLE_EQ(h.threads[1].turns[0].start_ms, 0.1);
        EXPECT_DOUBLE_EQ(h.threads[1].turns[0].end_ms, 0.3);
        EXPECT_NEAR(h.contended_s, 200e-6, 1e-12);
        EXPECT_EQ(h.handovers_sampled, 2u);
        EXPECT_EQ(h.missed_turns(), 0u);
        EXPECT_EQ(h.samples, 8u);
    }

    TEST(GilHolders, AFreeSampleEndsATurnAndCountsAsFree)
    {
        // A drops the GIL (zlib, sleep) and takes it back: same switch count, two turns.
        const gil_holders h = attribute_runs(sampling({{0, A, 7, 5, 1, 0}, {50 * us, 0, 7, 5, 1, 0}, {100 * us, A, 7, 5, 1, 0}},
                                                      150 * us),
                                             0, 150 * us, 2, resolve);
        EXPECT_EQ(h.threads[0].turns.size(), 2u);
        EXPECT_NEAR(h.free_s, 50e-6, 1e-12);
        EXPECT_EQ(h.handovers_sampled, 0u);
    }

    TEST(GilHolders, HandoversBetweenTwoSamplesAreMissedTurns)
    {
        // The switch count rises by 3 while the samples see A, then A again:
        // A -> x -> y -> A happened between them, two turns nobody saw.
        const gil_holders h = attribute_runs(sampling({{0, A, 10, 5, 1, 0}, {50 * us, A, 13, 5, 1, 0}}, 100 * us),
                                             0, 100 * us, 2, resolve);
        EXPECT_EQ(h.threads[0].turns.size(), 2u);
        EXPECT_EQ(h.handovers_sampled, 3u);
        EXPECT_EQ(h.handovers_seen, 0u);
        EXPECT_EQ(h.missed_turns(), 3u);
    }

    TEST(GilHolders, ANewThreadIdAloneDoesNotCutATurn)
    {
        const gil_holders h = attribute_runs(sampling({{0, A, 1, 5, 1, 0}, {50 * us, A, 1, 6, 1, 0}}, 100 * us),
                                             0, 100 * us, 2, resolve);
        EXPECT_EQ(h.threads[0].turns.size(), 1u);
        EXPECT_NEAR(h.threads[0].held_s, 100e-6, 1e-12);
    }

    TEST(GilHolders, UnprovenHoldersAreUnattributedAndTheWindowClips)
    {
        // Window 50-250 us: the first run is credited from the window's start.
        const gil_holders h = attribute_runs(sampling({{0, 0xdead, 1, 5, 2, 0}, {100 * us, B, 2, 5, 2, 0}, {200 * us, 0, 2, 5, 2, 0}},
                                                      300 * us),
                                             50 * us, 250 * us, 2, resolve);
        EXPECT_NEAR(h.unattributed.held_s, 50e-6, 1e-12);
        EXPECT_NEAR(h.threads[1].held_s, 100e-6, 1e-12);
        EXPECT_NEAR(h.free_s, 50e-6, 1e-12);
        EXPECT_NEAR(h.window_s, 200e-6, 1e-12);
        EXPECT_DOUBLE_EQ(h.threads[1].turns[0].start_ms, 0.05);
    }
}
