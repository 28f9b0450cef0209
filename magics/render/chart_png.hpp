// A chart as a PNG image, drawn by matplotlib (gillab/magics/charts.py) from the
// chart model (chart_model.hpp): real fonts, anti-aliasing, twice the display size
// for HiDPI. framework/presentation draws it when a result is shown.
#pragma once

#include <string>

namespace gillab
{
    struct ChartImage
    {
        std::string png_base64;
        int width = 0;  // display size in CSS pixels; the image has
        int height = 0;  // PIXEL_RATIO (2) times as many each way
    };
}
