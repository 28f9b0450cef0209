// The shared renderers: every magic's Result becomes the same mime bundle.
#pragma once

#include <string>

#include <vector>

#include "render/result.hpp"
#include "render/chart_png.hpp"

namespace gillab
{
    // Every cell as people read it ([row][column], number_format.hpp's
    // format_column down each column); units stay in the column headers.
    std::vector<std::vector<std::string>> format_table(const Table& table);

    std::string render_text(const Result& result);  // aligned table (+ a segment chart's strip)
    std::string render_html(const Result& result, const ChartImage* image);  // table (+ chart image when given)
    nl::json render_json(const Result& result);  // versioned schema

    struct MimeBundle
    {
        nl::json data = nl::json::object();
        nl::json metadata = nl::json::object();  // image/png: its display width and height
    };

    // render_json's MIME type. Not application/json: stock JupyterLab ranks that
    // first and would show a JSON tree instead of the table.
    inline constexpr const char* result_mime_type = "application/vnd.gillab.result+json";

    // text/plain, text/html, result_mime_type, and when there is a chart
    // application/vnd.vegalite.v5+json, and image/png when its image is given
    // (framework/presentation draws it; it needs Python, the rest does not).
    MimeBundle mime_bundle(const Result& result, const ChartImage* image);
}
