#include "framework/presentation.hpp"

#include <pybind11_json/pybind11_json.hpp>

#include <malloc.h>

#include <optional>

#include <xtl/xbase64.hpp>

#include "render/render.hpp"
#include "render/chart_model.hpp"
#include "framework/python_side.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        // Needs the GIL. Without matplotlib (or the NumPy it needs) there is no PNG: nullopt, and
        // the bundle keeps its table, Vega-Lite and text chart.
        std::optional<ChartImage> chart_to_png(const Chart& chart)
        {
            const std::optional<python_side::drawn_png> drawn = python_side::draw_png(chart_to_model(chart));
            if (!drawn) return std::nullopt;
            ChartImage image{xtl::base64encode(drawn->bytes), drawn->width, drawn->height};
            // A chart's raster buffers are megabytes each; freed, glibc keeps them in the heap
            // (its mmap threshold rises after the first), so the kernel's RSS climbed by
            // about 3 MB per round of bench/soak. Handing free pages back keeps it flat.
            malloc_trim(0);
            return image;
        }

        bool wanted(const std::string& mime, const py::object& include, const py::object& exclude)
        {
            return (include.is_none() || include.contains(mime)) && (exclude.is_none() || !exclude.contains(mime));
        }

        // IPython's (data, metadata) form: the PNG's metadata gives its display size.
        py::tuple repr_mimebundle(const Result& result, py::object include, py::object exclude)
        {
            std::optional<ChartImage> image;
            if (result.chart && wanted("image/png", include, exclude)) image = chart_to_png(*result.chart);  // nullopt without matplotlib
            const MimeBundle bundle = mime_bundle(result, image ? &*image : nullptr);
            py::dict data;
            for (const auto& item : bundle.data.items())
            {
                if (wanted(item.key(), include, exclude)) data[py::str(item.key())] = py::cast(item.value());
            }
            return py::make_tuple(data, py::cast(bundle.metadata));
        }
    }

    void bind_presentation(py::module_& m)
    {
        // No methods: Python hands it back to the functions below.
        py::class_<Result>(m, "Presentation", "a magic's Result, kept to draw its table and chart when shown");
        m.def("text", &render_text, "presentation"_a, "the result's table (and text chart) for people");
        m.def(
            "record", [](const Result& r) { return py::cast(render_json(r)); }, "presentation"_a,
            "the result as plain data: the application/vnd.gillab.result+json payload");
        m.def("mime_bundle", &repr_mimebundle, "presentation"_a, "include"_a = py::none(), "exclude"_a = py::none(),
              "IPython's (data, metadata): text, HTML, Vega-Lite, the PNG chart and the result's record");
    }

    py::dict magic_answer(Result result, const std::string& out_name)
    {
        py::dict answer;
        answer["magic"] = result.magic;
        answer["presentation"] = py::cast(std::move(result));
        answer["out"] = out_name.empty() ? py::object(py::none()) : py::object(py::str(out_name));
        return answer;
    }
}
