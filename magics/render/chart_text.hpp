// Charts as plain text, for text/plain (terminals, nbconvert --to script,
// graders' logs). Only segment charts have a text form: a strip per lane.
#pragma once

#include <string>

#include "render/result.hpp"

namespace gillab
{
    // One row per lane (per band, under the band's name), '#' where the lane
    // covers at least half of a column's span, '.' where it covers less, so
    // short segments stay visible. Lines are at most `width` characters
    // (at least 20 columns of strip). Empty for other kinds and for charts
    // with nothing to plot.
    std::string chart_to_text(const Chart& chart, std::size_t width = 80);
}
