#include "instruments/gil_trace_record.hpp"

#include "instruments/gil_handovers.hpp"

namespace
{
    using nlohmann::json;

    double seconds(uint64_t ns)
    {
        return static_cast<double>(ns) * 1e-9;
    }

    json thread_rows(const gillab::gil_handovers& read)
    {
        json rows = json::array();
        for (const auto& t : read.threads)
        {
            json spans = json::array();
            for (const gillab::gil_turn& turn : t.spans) spans.push_back({seconds(turn.start_ns), seconds(turn.end_ns)});
            rows.push_back({{"ident", t.ident}, {"native_id", t.native_id}, {"turns", t.turns}, {"retakes", t.retakes}, {"held_s", seconds(t.held_ns)}, {"waited_s", seconds(t.waited_ns)}, {"requests", t.requests}, {"spans", spans}});
        }
        return rows;
    }

    json handover_rows(const gillab::gil_trace& trace, const gillab::gil_handovers& read)
    {
        auto ident = [&](int thread) { return thread < 0 ? json(nullptr) : json(trace.threads[static_cast<size_t>(thread)].ident); };
        json rows = json::array();
        for (const auto& h : read.handovers)
            rows.push_back({{"taker", ident(h.taker)}, {"giver", ident(h.giver)}, {"forced", h.forced}, {"asked_s", seconds(h.asked_ns)}, {"took_s", seconds(h.took_ns)}, {"interval_s", seconds(h.parts.interval_ns)}, {"holder_s", seconds(h.parts.holder_ns)}, {"wake_s", seconds(h.parts.wake_ns)}, {"take_s", seconds(h.parts.take_ns)}});
        return rows;
    }
}

namespace gillab
{
    nlohmann::json gil_trace_record(const gil_trace& trace)
    {
        const gil_handovers read = read_handovers(trace);
        return {{"duration_s", seconds(trace.stopped_ns - trace.started_ns)}, {"switches", trace.switches}, {"lost", trace.lost}, {"forced", read.forced}, {"voluntary", read.voluntary}, {"threads", thread_rows(read)}, {"handovers", handover_rows(trace, read)}};
    }
}
