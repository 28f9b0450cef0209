#include "framework/gil_trace_tool.hpp"

#include <optional>
#include <pybind11/stl.h>

#include "instruments/gil_handovers.hpp"
#include "instruments/gil_state.h"
#include "instruments/switch_interval.hpp"

namespace
{
    using namespace pybind11::literals;
    namespace py = pybind11;
    using gillab::gil_trace;

    double seconds(uint64_t ns)
    {
        return static_cast<double>(ns) * 1e-9;
    }

    py::list thread_rows(const gillab::gil_handovers& read)
    {
        py::list rows;
        for (const auto& t : read.threads)
        {
            py::list spans;
            for (const gillab::gil_turn& turn : t.spans) spans.append(py::make_tuple(seconds(turn.start_ns), seconds(turn.end_ns)));
            rows.append(py::dict("ident"_a = t.ident, "native_id"_a = t.native_id, "turns"_a = t.turns,
                                 "held_s"_a = seconds(t.held_ns), "waited_s"_a = seconds(t.waited_ns),
                                 "requests"_a = t.requests, "spans"_a = spans));
        }
        return rows;
    }

    py::list handover_rows(const gil_trace& trace, const gillab::gil_handovers& read)
    {
        auto ident = [&](int thread) -> py::object {
            if (thread < 0) return py::none();
            return py::int_(trace.threads[static_cast<size_t>(thread)].ident);
        };
        py::list rows;
        for (const auto& h : read.handovers)
        {
            rows.append(py::dict("taker"_a = ident(h.taker), "giver"_a = ident(h.giver), "forced"_a = h.forced,
                                 "asked_s"_a = seconds(h.asked_ns), "took_s"_a = seconds(h.took_ns),
                                 "interval_s"_a = seconds(h.parts.interval_ns), "holder_s"_a = seconds(h.parts.holder_ns),
                                 "wake_s"_a = seconds(h.parts.wake_ns), "take_s"_a = seconds(h.parts.take_ns)));
        }
        return rows;
    }

    class gil_trace_tool
    {
    public:
        gil_trace_tool& enter()
        {
            gillab_gil_fields fields{};
            if (const char* reason = gillab_gil_attach(&fields)) throw std::runtime_error(std::string("cannot trace the GIL here: gillab ") + reason);
            m_interval_s = gillab::switch_interval_s();
            if (std::string reason = gillab::start_gil_trace(fields); !reason.empty())
                throw std::runtime_error("cannot trace the GIL here: " + reason);
            m_running = true;
            return *this;
        }

        void exit(const py::args&)
        {
            if (m_running) m_trace = gillab::stop_gil_trace();
            m_running = false;
            m_interval_end_s = gillab::switch_interval_s();
        }

        // A tool dropped inside its block (the block never ended) stops its own trace, no other.
        ~gil_trace_tool()
        {
            if (m_running) gillab::stop_gil_trace();
        }

        py::dict result() const
        {
            if (!m_trace) throw std::runtime_error("the trace has not run: use it as `with GilTrace() as trace:`");
            const gillab::gil_handovers read = gillab::read_handovers(*m_trace);
            return py::dict("interval_s"_a = m_interval_s, "interval_end_s"_a = m_interval_end_s, "duration_s"_a = seconds(m_trace->stopped_ns - m_trace->started_ns),
                            "switches"_a = m_trace->switches, "lost"_a = m_trace->lost, "forced"_a = read.forced,
                            "voluntary"_a = read.voluntary, "threads"_a = thread_rows(read),
                            "handovers"_a = handover_rows(*m_trace, read));
        }

    private:
        double m_interval_s = 0, m_interval_end_s = 0;  // the switch interval when the block began and ended
        bool m_running = false;
        std::optional<gil_trace> m_trace;
    };
}

namespace gillab
{
    void bind_gil_trace_tool(py::module_& m)
    {
        py::class_<gil_trace_tool>(m, "GilTrace",
                                   "Every GIL hand-over while the with-block runs: result() gives the count (forced and "
                                   "voluntary), each wait cut into interval / holder / wake / take, and each thread's turns.")
            .def(py::init<>())
            .def("__enter__", &gil_trace_tool::enter, py::return_value_policy::reference)
            .def("__exit__", &gil_trace_tool::exit)
            .def("result", &gil_trace_tool::result, "the trace read as hand-overs (a dict)");
    }

    py::object gil_trace_type()
    {
        return py::type::of<gil_trace_tool>();
    }
}
