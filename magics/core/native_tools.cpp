#include "native_tools.hpp"

#include <memory>

#include <pybind11_json/pybind11_json.hpp>

#include "gil_probe.hpp"
#include "python_probe.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        std::unique_ptr<gil_probe> make_probe(const std::string& schedule, double every_s, std::size_t capacity)
        {
            if (schedule != "sleep" && schedule != "yield")
                throw py::value_error("GilProbe: schedule must be sleep or yield, not '" + schedule + "'");
            return std::make_unique<gil_probe>(schedule == "yield" ? gil_probe::schedule::yield : gil_probe::schedule::periodic,
                                               every_s, capacity);
        }
    }

    void bind_native_tools(py::module_& m)
    {
        py::class_<gil_probe, std::unique_ptr<gil_probe>>(
            m, "GilProbe",
            "A native thread that asks for the GIL: every every_s (schedule 'sleep') or again at once after "
            "a time.sleep(0) (schedule 'yield'), keeping up to capacity samples.")
            .def(py::init(&make_probe), "schedule"_a, "every_s"_a, "capacity"_a)
            .def("start", &gil_probe::start)
            .def("stop", &gil_probe::stop, "joins the probe thread (the GIL is released meanwhile)")
            .def("report", [](const gil_probe& probe) { return py::cast(native_probe_report(probe)); },
                 "its figures, in the shape a runner hands back (the sample statistics summarised)");
    }

    py::object native_tools()
    {
        return py::module_::import("types").attr("SimpleNamespace")("probe"_a = py::type::of<gil_probe>());
    }
}
