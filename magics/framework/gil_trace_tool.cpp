#include "framework/gil_trace_tool.hpp"

#include <optional>
#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

#include "instruments/gil_trace_record.hpp"
#include "instruments/gil_state.h"
#include "instruments/switch_interval.hpp"

namespace
{
    using namespace pybind11::literals;
    namespace py = pybind11;
    using gillab::gil_trace;

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

        py::object result() const
        {
            if (!m_trace) throw std::runtime_error("the trace has not run: use it as `with GilTrace() as trace:`");
            nlohmann::json record = gillab::gil_trace_record(*m_trace);
            record["interval_s"] = m_interval_s;
            record["interval_end_s"] = m_interval_end_s;
            return py::cast(record);
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
