#include "render/chart_png.hpp"

#include <pybind11/pybind11.h>
#include <pybind11_json/pybind11_json.hpp>
#include <xtl/xbase64.hpp>

#include "render/chart_model.hpp"

namespace gillab
{
    namespace py = pybind11;

    ChartImage chart_to_png(const Chart& chart)
    {
        // Imported on the first chart, not with gillab: matplotlib's import is
        // most of what the first chart costs (bench/chart_cost).
        const py::tuple drawn = py::module_::import("gillab.charts").attr("render_png")(py::cast(chart_to_model(chart)));
        return {xtl::base64encode(drawn[0].cast<std::string>()), drawn[1].cast<int>(), drawn[2].cast<int>()};
    }
}
