#include "render/chart_png.hpp"

#include <malloc.h>

#include <pybind11/pybind11.h>
#include <pybind11_json/pybind11_json.hpp>
#include <xtl/xbase64.hpp>

#include "render/chart_model.hpp"

namespace gillab
{
    namespace py = pybind11;

    std::optional<ChartImage> chart_to_png(const Chart& chart)
    {
        // Imported on the first chart, not with gillab: matplotlib's import is
        // most of what the first chart costs (bench/chart_cost).
        py::object charts;
        try
        {
            charts = py::module_::import("gillab.magics.charts");
        }
        catch (py::error_already_set& e)
        {
            if (!e.matches(PyExc_ImportError)) throw;
            return std::nullopt;
        }
        const py::tuple drawn = charts.attr("render_png")(py::cast(chart_to_model(chart)));
        ChartImage image{xtl::base64encode(drawn[0].cast<std::string>()), drawn[1].cast<int>(), drawn[2].cast<int>()};
        // A chart's raster buffers are megabytes each; freed, glibc keeps them in the heap
        // (its mmap threshold rises after the first), so the kernel's RSS climbed by
        // about 3 MB per round of bench/soak. Handing free pages back keeps it flat.
        malloc_trim(0);
        return image;
    }
}
