#include "instruments/gil_handovers.hpp"

#include <algorithm>

namespace
{
    using namespace gillab;

    struct stamped
    {
        uint64_t ns;
        int thread;
        gil_event event;
    };

    // A take in progress: from the thread's lock of the GIL's mutex to its take.
    struct take_state
    {
        uint64_t locked_ns = 0;  // its latest lock of the GIL's mutex (a take's or a drop's)
        bool waiting = false;
        uint64_t asked_ns = 0, requested_ns = 0, woke_ns = 0;
        uint64_t took_ns = 0;
        bool holds = false;
    };

    struct last_drop
    {
        uint64_t ns = 0;
        int thread = -1;
    };

    std::vector<stamped> merged(const gil_trace& trace)
    {
        std::vector<stamped> all;
        for (size_t t = 0; t < trace.threads.size(); ++t)
        {
            for (const gil_event& e : trace.threads[t].events) all.push_back({e.ns, static_cast<int>(t), e});
        }
        std::stable_sort(all.begin(), all.end(), [](const stamped& a, const stamped& b) { return a.ns < b.ns; });
        return all;
    }

    // Consecutive cuts, each clamped to the one before, so the parts never go
    // negative and always add up to took - asked.
    gil_wait_parts cut(uint64_t asked, const take_state& s, const last_drop& drop, bool forced, uint64_t took_ns)
    {
        const uint64_t requested = forced ? std::max(asked, s.requested_ns) : asked;
        const uint64_t dropped = std::max(requested, drop.ns);
        const uint64_t woke = std::max(dropped, s.woke_ns);
        const uint64_t took = std::max(woke, took_ns);
        return {requested - asked, dropped - requested, woke - dropped, took - woke};
    }

    class reader
    {
    public:
        explicit reader(const gil_trace& trace)
            : m_trace(trace)
            , m_states(trace.threads.size())
        {
            for (const gil_thread_log& log : trace.threads) m_out.threads.push_back({log.ident, log.native_id, 0, log.retakes, 0, 0, 0, {}});
        }

        gil_handovers read()
        {
            for (const stamped& s : merged(m_trace)) step(s);
            // The turn under way when the trace stopped ends there.
            for (size_t t = 0; t < m_states.size(); ++t)
                if (m_states[t].holds && m_trace.stopped_ns > m_states[t].took_ns) held(static_cast<int>(t), m_states[t].took_ns, m_trace.stopped_ns);
            held_throughout();
            for (size_t t = 0; t < m_states.size(); ++t)
            {
                gil_thread_turns& turns = m_out.threads[t];
                turns.held_ns -= std::min(turns.held_ns, m_trace.threads[t].released_ns);
            }
            return std::move(m_out);
        }

    private:
        void step(const stamped& s)
        {
            take_state& state = m_states[s.thread];
            switch (s.event.kind)
            {
                case gil_event_kind::locking: state.locked_ns = s.ns; break;
                case gil_event_kind::wait_ended: waited(state, s); break;
                case gil_event_kind::took: took(state, s); break;
                case gil_event_kind::dropped: dropped(state, s); break;
                default: break;
            }
        }

        void waited(take_state& state, const stamped& s)
        {
            if (!state.waiting)
            {
                state.waiting = true;
                state.asked_ns = state.locked_ns;
            }
            state.woke_ns = s.ns;
            if (s.event.outcome == gil_wait_outcome::requested)
            {
                state.requested_ns = s.ns;
                ++m_out.threads[s.thread].requests;
            }
        }

        void took(take_state& state, const stamped& s)
        {
            gil_thread_turns& turns = m_out.threads[s.thread];
            ++turns.turns;
            // A thread already waiting when the trace started is counted from the start.
            const uint64_t asked = std::clamp(state.waiting ? state.asked_ns : state.locked_ns, m_trace.started_ns, s.ns);
            turns.waited_ns += s.ns - asked;
            if (s.thread != m_holder) handed_over(state, s, asked);
            m_holder = s.thread;
            state = take_state{};
            state.holds = true;
            state.took_ns = s.ns;
        }

        void handed_over(const take_state& state, const stamped& s, uint64_t asked)
        {
            gil_handover h;
            h.taker = s.thread;
            h.giver = m_drop.thread == s.thread ? -1 : m_drop.thread;
            h.forced = state.waiting && state.requested_ns != 0 && state.requested_ns <= m_drop.ns;
            h.asked_ns = asked - m_trace.started_ns;
            h.took_ns = s.ns - m_trace.started_ns;
            h.parts = cut(asked, state, m_drop, h.forced, s.ns);
            (h.forced ? m_out.forced : m_out.voluntary) += 1;
            m_out.handovers.push_back(h);
        }

        void dropped(take_state& state, const stamped& s)
        {
            // The thread that started the trace held the GIL without a take the trace saw.
            if (m_holder < 0)
            {
                m_holder = s.thread;
                if (!state.holds) held(s.thread, m_trace.started_ns, s.ns);
            }
            if (state.holds) held(s.thread, state.took_ns, s.ns);
            state.holds = false;
            m_drop = {s.ns, s.thread};
        }

        // No drop kept at all: the thread that started the trace held the GIL
        // to its stop, letting it go only for re-takes (it alone has those).
        void held_throughout()
        {
            if (m_holder >= 0) return;
            for (size_t t = 0; t < m_trace.threads.size(); ++t)
                if (m_trace.threads[t].retakes > 0) held(static_cast<int>(t), m_trace.started_ns, m_trace.stopped_ns);
        }

        void held(int thread, uint64_t from_ns, uint64_t to_ns)
        {
            gil_thread_turns& turns = m_out.threads[thread];
            turns.held_ns += to_ns - from_ns;
            turns.spans.push_back({from_ns - m_trace.started_ns, to_ns - m_trace.started_ns});
        }

        const gil_trace& m_trace;
        std::vector<take_state> m_states;
        gil_handovers m_out;
        int m_holder = -1;
        last_drop m_drop;
    };
}

namespace gillab
{
    gil_handovers read_handovers(const gil_trace& trace)
    {
        return reader(trace).read();
    }
}
