// A chart as a PNG image, drawn by matplotlib (gillab/magics/charts.py) from the
// chart model: real fonts, anti-aliasing, twice the display size for HiDPI.
#pragma once

#include <optional>
#include <string>

#include "render/result.hpp"

namespace gillab
{
    struct ChartImage
    {
        std::string png_base64;
        int width = 0;  // display size in CSS pixels; the image has
        int height = 0;  // PIXEL_RATIO (2) times as many each way
    };

    // Needs the GIL. The first call imports matplotlib. Without matplotlib
    // (or the NumPy it needs) there is no PNG: nullopt, and the bundle keeps
    // its table, Vega-Lite and text chart. A drawing bug propagates as
    // py::error_already_set.
    std::optional<ChartImage> chart_to_png(const Chart& chart);
}
