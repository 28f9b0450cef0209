// Turns a Chart into a Vega-Lite v5 spec for front ends that render
// application/vnd.vegalite.v5+json (JupyterLab, VS Code).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "render/result.hpp"

namespace gillab
{
    // Points with a non-finite coordinate, and bar points whose index names
    // no category, are left out of the data; so are segments with a
    // non-finite or reversed span, or a lane or band index out of range.
    // The table a chart was drawn from, as people read it.
    struct ChartFigures
    {
        std::vector<std::string> headers;  // one per column, units included
        std::vector<std::vector<std::string>> rows;  // [row][column], as the table prints them
    };

    // When every point names its table row (ChartSeries::rows), each carries
    // that row's cells and its tooltip lists them under the column headers;
    // otherwise tooltips show the point's own series, x and y.
    nlohmann::json chart_to_vegalite(const Chart& chart, const ChartFigures& figures = {});
}
