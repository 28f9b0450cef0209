// The shared renderers: every magic's Result becomes the same mime bundle.
#pragma once

#include <string>

#include "result.hpp"

namespace gillab
{
    // A cell as people read it: numbers to a sensible precision with units
    // left to the column header.
    std::string format_cell(const Cell& cell);

    std::string render_text(const Result& result);                                // aligned table (+ a segment chart's strip)
    std::string render_html(const Result& result, const std::string& png_base64);  // table (+ chart image)
    nl::json render_json(const Result& result);                                   // versioned schema

    // text/plain, text/html, application/json, and when there is a chart
    // application/vnd.vegalite.v5+json and image/png.
    nl::json mime_bundle(const Result& result);
}
