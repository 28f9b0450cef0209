// A chart as a PNG image, drawn by matplotlib (gillab/charts.py) from the
// chart model: real fonts, anti-aliasing, twice the display size for HiDPI.
#pragma once

#include <string>

#include "core/result.hpp"

namespace gillab
{
    struct ChartImage
    {
        std::string png_base64;
        int width = 0;   // display size in CSS pixels; the image has
        int height = 0;  // PIXEL_RATIO (2) times as many each way
    };

    // Needs the GIL. The first call imports matplotlib; a Python error
    // (matplotlib missing, a drawing bug) propagates as py::error_already_set.
    ChartImage chart_to_png(const Chart& chart);
}
