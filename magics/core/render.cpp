#include "render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "../render/base64.hpp"
#include "../render/chart_png.hpp"
#include "../render/chart_text.hpp"
#include "../render/chart_vegalite.hpp"

namespace gillab
{
    namespace
    {
        std::string format_number(double value)
        {
            if (!std::isfinite(value))
            {
                return std::isnan(value) ? "n/a" : (value > 0 ? "inf" : "-inf");
            }
            char buffer[64];
            const double magnitude = std::fabs(value);
            if (magnitude != 0.0 && (magnitude < 1e-3 || magnitude >= 1e7))
            {
                std::snprintf(buffer, sizeof(buffer), "%.3g", value);
            }
            else if (magnitude >= 100)
            {
                std::snprintf(buffer, sizeof(buffer), "%.1f", value);
            }
            else if (magnitude >= 1)
            {
                std::snprintf(buffer, sizeof(buffer), "%.3f", value);
            }
            else
            {
                std::snprintf(buffer, sizeof(buffer), "%.4f", value);
            }
            return buffer;
        }

        std::string header(const Column& column)
        {
            return column.unit.empty() ? column.title : column.title + " (" + column.unit + ")";
        }

        bool is_numeric(const Cell& cell)
        {
            return std::holds_alternative<double>(cell) || std::holds_alternative<std::int64_t>(cell);
        }

        std::string escape_html(const std::string& text)
        {
            std::string out;
            for (char c : text)
            {
                switch (c)
                {
                    case '&': out += "&amp;"; break;
                    case '<': out += "&lt;"; break;
                    case '>': out += "&gt;"; break;
                    case '"': out += "&quot;"; break;
                    default: out += c;
                }
            }
            return out;
        }

        // Display width of UTF-8 text: count code points, not bytes.
        std::size_t display_width(const std::string& text)
        {
            return static_cast<std::size_t>(std::count_if(text.begin(), text.end(),
                [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
        }

        std::string pad(const std::string& text, std::size_t width, bool right)
        {
            std::string fill(width > display_width(text) ? width - display_width(text) : 0, ' ');
            return right ? fill + text : text + fill;
        }

        nl::json cell_json(const Cell& cell)
        {
            if (auto* i = std::get_if<std::int64_t>(&cell)) return *i;
            if (auto* d = std::get_if<double>(&cell)) return std::isfinite(*d) ? nl::json(*d) : nl::json(nullptr);
            if (auto* s = std::get_if<std::string>(&cell)) return *s;
            return nullptr;
        }
    }

    std::string format_cell(const Cell& cell)
    {
        if (auto* i = std::get_if<std::int64_t>(&cell)) return std::to_string(*i);
        if (auto* d = std::get_if<double>(&cell)) return format_number(*d);
        if (auto* s = std::get_if<std::string>(&cell)) return *s;
        return "";
    }

    std::string render_text(const Result& result)
    {
        const Table& table = result.table;
        std::vector<std::size_t> widths;
        for (const Column& column : table.columns)
        {
            widths.push_back(display_width(header(column)));
        }
        for (const Row& row : table.rows)
        {
            for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c)
            {
                widths[c] = std::max(widths[c], display_width(format_cell(row[c])));
            }
        }
        std::string out = table.title.empty() ? "" : table.title + "\n";
        std::string rule;
        for (std::size_t c = 0; c < table.columns.size(); ++c)
        {
            out += (c ? "  " : "") + pad(header(table.columns[c]), widths[c], false);
            rule += (c ? "  " : "") + std::string(widths[c], '-');
        }
        out += "\n" + rule + "\n";
        for (const Row& row : table.rows)
        {
            for (std::size_t c = 0; c < table.columns.size(); ++c)
            {
                const Cell cell = c < row.size() ? row[c] : Cell{};
                out += (c ? "  " : "") + pad(format_cell(cell), widths[c], is_numeric(cell));
            }
            out += "\n";
        }
        const std::string strip = result.chart ? chart_to_text(*result.chart) : "";
        if (!strip.empty())
        {
            out += strip + "\n";
        }
        for (const std::string& note : table.notes)
        {
            out += note + "\n";
        }
        if (!out.empty() && out.back() == '\n')
        {
            out.pop_back();
        }
        return out;
    }

    std::string render_html(const Result& result, const std::string& png_base64)
    {
        const Table& table = result.table;
        std::string out = "<div class=\"gillab-result\">";
        out += "<table><caption style=\"text-align:left;font-weight:bold\">" + escape_html(table.title) + "</caption><thead><tr>";
        for (const Column& column : table.columns)
        {
            out += "<th>" + escape_html(header(column)) + "</th>";
        }
        out += "</tr></thead><tbody>";
        for (const Row& row : table.rows)
        {
            out += "<tr>";
            for (std::size_t c = 0; c < table.columns.size(); ++c)
            {
                const Cell cell = c < row.size() ? row[c] : Cell{};
                out += std::string(is_numeric(cell) ? "<td style=\"text-align:right\">" : "<td style=\"text-align:left\">") +
                       escape_html(format_cell(cell)) + "</td>";
            }
            out += "</tr>";
        }
        out += "</tbody></table>";
        for (const std::string& note : table.notes)
        {
            out += "<p style=\"margin:2px 0\">" + escape_html(note) + "</p>";
        }
        if (!png_base64.empty())
        {
            out += "<img alt=\"" + escape_html(result.chart ? result.chart->title : "") +
                   "\" src=\"data:image/png;base64," + png_base64 + "\"/>";
        }
        return out + "</div>";
    }

    nl::json render_json(const Result& result)
    {
        nl::json columns = nl::json::array();
        for (const Column& column : result.table.columns)
        {
            columns.push_back({{"key", column.key}, {"title", column.title}, {"unit", column.unit}});
        }
        nl::json rows = nl::json::array();
        for (const Row& row : result.table.rows)
        {
            nl::json record = nl::json::object();
            for (std::size_t c = 0; c < result.table.columns.size() && c < row.size(); ++c)
            {
                record[result.table.columns[c].key] = cell_json(row[c]);
            }
            rows.push_back(record);
        }
        return {{"schema", "gillab.result"},
                {"schema_version", result_schema_version},
                {"magic", result.magic},
                {"title", result.table.title},
                {"columns", columns},
                {"rows", rows},
                {"notes", result.table.notes},
                {"data", result.data}};
    }

    nl::json mime_bundle(const Result& result)
    {
        std::string png;
        nl::json bundle = nl::json::object();
        if (result.chart)
        {
            png = base64_encode(chart_to_png(*result.chart));
            bundle["image/png"] = png;
            bundle["application/vnd.vegalite.v5+json"] = chart_to_vegalite(*result.chart);
        }
        bundle["text/plain"] = render_text(result);
        bundle["text/html"] = render_html(result, png);
        bundle["application/json"] = render_json(result);
        return bundle;
    }
}
