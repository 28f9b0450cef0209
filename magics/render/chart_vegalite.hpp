// Turns a Chart into a Vega-Lite v5 spec for front ends that render
// application/vnd.vegalite.v5+json (JupyterLab, VS Code).
#pragma once

#include <nlohmann/json.hpp>

#include "core/result.hpp"

namespace gillab
{
    // Points with a non-finite coordinate, and bar points whose index names
    // no category, are left out of the data; so are segments with a
    // non-finite or reversed span, or a lane or band index out of range.
    nlohmann::json chart_to_vegalite(const Chart& chart);
}
