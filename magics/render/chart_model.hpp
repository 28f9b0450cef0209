// The chart model as plain data, for the renderer that lives in Python
// (gillab/magics/charts.py draws the PNG from it with matplotlib).
#pragma once

#include <nlohmann/json.hpp>

#include "render/result.hpp"

namespace gillab
{
    // {"kind", "title", "x_title", "y_title", "categories", "series": [{"name",
    // "x", "y"}], "rules": [{"label", "y"}], "lanes", "bands", "segments":
    // [{"band", "lane", "start", "end"}]}, with what Chart::plottable rejects
    // and rules at non-finite heights left out, as the other renderers do.
    // Bar x values become category indices, and bar series carry "labels":
    // each height as the tables print figures.
    nlohmann::json chart_to_model(const Chart& chart);
}
