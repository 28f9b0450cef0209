// How %%gilwatch proves a thread is still waiting for the GIL after the OS
// showed it blocked on the GIL's condition variable: the switch counter not
// moving, or moving once to another last holder, keeps the wait; the thread
// becoming the last holder, or two hand-overs between samples, ends it.
#include <gtest/gtest.h>

#include "instruments/gil_waits.hpp"

namespace gillab
{
    namespace
    {
        constexpr std::uintptr_t T = 0x1000;  // the waiting thread's state
        constexpr std::uintptr_t X = 0x2000;  // another thread's
        constexpr std::int64_t us = 1000;
    }

    TEST(GilWaits, AWaitLastsUntilTheSampleThatShowsTheThreadTookTheGil)
    {
        gil_wait_tracker w(T);
        w.seen_blocked(10 * us, 4);
        w.sample(50 * us, 4, X, 4);  // nobody took it
        w.sample(100 * us, 5, X, 5);  // X took it (one hand-over, not to T)
        EXPECT_TRUE(w.waiting());
        w.sample(150 * us, 6, T, 6);  // T took it
        EXPECT_FALSE(w.waiting());
        EXPECT_EQ(w.waited_ns(), 140 * us);
        EXPECT_EQ(w.waits(), 1u);
    }

    TEST(GilWaits, TwoHandoversBetweenSamplesEndTheWaitUnproven)
    {
        // T could have taken the GIL and given it back to X between the samples.
        gil_wait_tracker w(T);
        w.seen_blocked(0, 7);
        w.sample(100 * us, 9, X, 9);
        EXPECT_FALSE(w.waiting());
        EXPECT_EQ(w.waited_ns(), 100 * us);
    }

    TEST(GilWaits, AHandoverBetweenTheCounterReadsEndsTheWait)
    {
        gil_wait_tracker w(T);
        w.seen_blocked(0, 3);
        w.sample(100 * us, 3, X, 4);  // last_holder read mid hand-over: it may be stale
        EXPECT_FALSE(w.waiting());
    }

    TEST(GilWaits, SightingsDuringAWaitAreTheSameWaitAndAnOpenWaitClosesAtTheEnd)
    {
        gil_wait_tracker w(T);
        w.seen_blocked(0, 1);
        w.sample(100 * us, 1, X, 1);
        w.seen_blocked(120 * us, 1);
        w.sample(200 * us, 2, X, 2);
        w.close(300 * us);
        EXPECT_EQ(w.waited_ns(), 300 * us);
        EXPECT_EQ(w.waits(), 1u);
        w.sample(400 * us, 3, T, 3);  // after the end: nothing more credited
        EXPECT_EQ(w.waited_ns(), 300 * us);
    }

    TEST(GilWaits, SamplesWithoutASightingCreditNothing)
    {
        gil_wait_tracker w(T);
        w.sample(100 * us, 1, X, 1);
        w.close(200 * us);
        EXPECT_EQ(w.waited_ns(), 0);
        EXPECT_EQ(w.waits(), 0u);
    }
}
