// How a trace of GIL events reads as hand-overs: a waiter that set the drop
// request makes a forced hand-over whose four parts add up to its wait; a
// holder that drops unasked makes a voluntary one; a thread taking back the
// GIL it dropped is no hand-over at all, and when folded into counts its
// gaps leave the turn's held time; each turn is a span, bounded by the
// trace's start and stop when under way then.
#include <gtest/gtest.h>

#include "instruments/gil_handovers.hpp"

namespace gillab
{
    namespace
    {
        constexpr uint64_t us = 1000;
        constexpr uint64_t start = 1000000 * us;

        gil_event at(uint64_t t_us, gil_event_kind kind, gil_wait_outcome outcome = gil_wait_outcome::woken)
        {
            return {start + t_us * us, 0, kind, outcome};
        }

        // A trace of two threads, A (ident 1) and B (ident 2), from their events.
        gil_trace two_threads(std::vector<gil_event> a, std::vector<gil_event> b)
        {
            gil_trace trace;
            trace.started_ns = start;
            trace.threads.push_back({1, 11, std::move(a)});
            trace.threads.push_back({2, 22, std::move(b)});
            return trace;
        }

        // A holds the GIL when the trace starts; B asks at 100 us, its wait runs
        // out at 5100 us and sets the request, A drops at 5300 us, B wakes at
        // 5350 us and holds the GIL at 5360 us.
        gil_trace forced_handover()
        {
            gil_trace trace;
            trace.started_ns = start;
            trace.threads.push_back({1, 11, {at(5290, gil_event_kind::locking), at(5300, gil_event_kind::dropped), at(5301, gil_event_kind::yield_began), at(5361, gil_event_kind::yield_ended)}});
            trace.threads.push_back({2, 22, {at(100, gil_event_kind::locking), at(5100, gil_event_kind::wait_ended, gil_wait_outcome::requested), at(5350, gil_event_kind::wait_ended), at(5360, gil_event_kind::took)}});
            return trace;
        }
    }

    TEST(GilHandovers, AForcedWaitIsCutIntoIntervalHolderWakeAndTake)
    {
        const gil_handovers read = read_handovers(forced_handover());
        ASSERT_EQ(read.handovers.size(), 1u);
        const gil_handover& h = read.handovers[0];
        EXPECT_TRUE(h.forced);
        EXPECT_EQ(h.taker, 1);
        EXPECT_EQ(h.giver, 0);
        EXPECT_EQ(h.parts.interval_ns, 5000 * us);
        EXPECT_EQ(h.parts.holder_ns, 200 * us);
        EXPECT_EQ(h.parts.wake_ns, 50 * us);
        EXPECT_EQ(h.parts.take_ns, 10 * us);
        EXPECT_EQ(h.parts.total_ns(), h.took_ns - h.asked_ns);
        EXPECT_EQ(read.forced, 1);
        EXPECT_EQ(read.threads[1].requests, 1);
    }

    TEST(GilHandovers, AHolderThatDropsUnaskedHandsOverVoluntarily)
    {
        const gil_handovers read = read_handovers(two_threads({at(900, gil_event_kind::locking), at(1000, gil_event_kind::dropped)}, {at(100, gil_event_kind::locking), at(1040, gil_event_kind::wait_ended), at(1050, gil_event_kind::took)}));
        ASSERT_EQ(read.handovers.size(), 1u);
        EXPECT_FALSE(read.handovers[0].forced);
        EXPECT_EQ(read.handovers[0].parts.interval_ns, 0u);
        EXPECT_EQ(read.handovers[0].parts.holder_ns, 900 * us);
        EXPECT_EQ(read.handovers[0].parts.total_ns(), 950 * us);
        EXPECT_EQ(read.voluntary, 1);
    }

    TEST(GilHandovers, TakingBackTheGilOneDroppedIsNoHandover)
    {
        gil_trace trace;
        trace.started_ns = start;
        trace.threads.push_back({1, 11, {at(10, gil_event_kind::locking), at(11, gil_event_kind::dropped), at(20, gil_event_kind::locking), at(21, gil_event_kind::took), at(90, gil_event_kind::locking), at(91, gil_event_kind::dropped)}});
        const gil_handovers read = read_handovers(trace);
        EXPECT_TRUE(read.handovers.empty());
        EXPECT_EQ(read.threads[0].turns, 1);
        // 0..11 us held from the trace's start, then 21..91 us.
        EXPECT_EQ(read.threads[0].held_ns, 81 * us);
    }

    TEST(GilHandovers, EachTurnIsASpanAndTheTracesStartAndStopBoundTheTurnsUnderWay)
    {
        gil_trace trace = forced_handover();
        trace.stopped_ns = start + 9000 * us;
        const gil_handovers read = read_handovers(trace);
        ASSERT_EQ(read.threads[0].spans.size(), 1u);
        EXPECT_EQ(read.threads[0].spans[0].start_ns, 0u);
        EXPECT_EQ(read.threads[0].spans[0].end_ns, 5300 * us);
        ASSERT_EQ(read.threads[1].spans.size(), 1u);
        EXPECT_EQ(read.threads[1].spans[0].start_ns, 5360 * us);
        EXPECT_EQ(read.threads[1].spans[0].end_ns, 9000 * us);
        EXPECT_EQ(read.threads[1].held_ns, 3640 * us);
    }

    TEST(GilHandovers, ATakeThatFoundTheGilFreeIsAllTakePart)
    {
        const gil_handovers read = read_handovers(two_threads({at(10, gil_event_kind::locking), at(11, gil_event_kind::dropped)}, {at(30, gil_event_kind::locking), at(31, gil_event_kind::took)}));
        ASSERT_EQ(read.handovers.size(), 1u);
        EXPECT_EQ(read.handovers[0].parts.take_ns, 1 * us);
        EXPECT_EQ(read.handovers[0].parts.total_ns(), 1 * us);
        EXPECT_FALSE(read.handovers[0].forced);
    }

    TEST(GilHandovers, AThreadWaitingBeforeTheTraceStartedIsCountedFromTheStart)
    {
        const gil_handovers read = read_handovers(two_threads({at(40, gil_event_kind::locking), at(50, gil_event_kind::dropped)}, {at(60, gil_event_kind::wait_ended), at(70, gil_event_kind::took)}));
        ASSERT_EQ(read.handovers.size(), 1u);
        EXPECT_EQ(read.handovers[0].asked_ns, 0u);
        EXPECT_EQ(read.handovers[0].parts.total_ns(), 70 * us);
        EXPECT_EQ(read.threads[1].waited_ns, 70 * us);
    }

    TEST(GilHandovers, FoldedReTakesStayInsideTheTurnAndTheirGapsLeaveItsHeldTime)
    {
        gil_trace trace = two_threads({at(900, gil_event_kind::locking), at(1000, gil_event_kind::dropped)}, {at(100, gil_event_kind::locking), at(1040, gil_event_kind::wait_ended), at(1050, gil_event_kind::took)});
        trace.stopped_ns = start + 2000 * us;
        trace.threads[0].retakes = 3;
        trace.threads[0].released_ns = 30 * us;
        const gil_handovers read = read_handovers(trace);
        ASSERT_EQ(read.handovers.size(), 1u);
        EXPECT_EQ(read.threads[0].retakes, 3u);
        ASSERT_EQ(read.threads[0].spans.size(), 1u);
        EXPECT_EQ(read.threads[0].spans[0].end_ns, 1000 * us);
        EXPECT_EQ(read.threads[0].held_ns, 970 * us);
        EXPECT_EQ(read.threads[1].held_ns, 950 * us);
    }

    TEST(GilHandovers, AStarterWhoseDropsWereAllTakenBackHeldTheGilToTheStopLessTheGaps)
    {
        gil_trace trace;
        trace.started_ns = start;
        trace.stopped_ns = start + 500 * us;
        trace.threads.push_back({1, 11, {}, 40, 80 * us});
        const gil_handovers read = read_handovers(trace);
        EXPECT_TRUE(read.handovers.empty());
        EXPECT_EQ(read.threads[0].held_ns, 420 * us);
        EXPECT_EQ(read.threads[0].retakes, 40u);
    }
}
