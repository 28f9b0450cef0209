#include "render/render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "render/number_format.hpp"
#include "render/chart_text.hpp"
#include "render/chart_vegalite.hpp"

namespace gillab
{
    namespace
    {
        std::string header(const Column& column)
        {
            return column.unit.empty() ? column.title : column.title + " (" + column.unit + ")";
        }

        bool is_numeric(const Cell& cell)
        {
            return std::holds_alternative<double>(cell) || std::holds_alternative<std::int64_t>(cell);
        }

        // Right-aligned: a column of numbers (blanks allowed). A number among
        // words stays left, with the words.
        std::vector<bool> numeric_columns(const Table& table)
        {
            std::vector<bool> numeric(table.columns.size(), true);
            for (const Row& row : table.rows)
            {
                for (std::size_t c = 0; c < row.size() && c < numeric.size(); ++c)
                {
                    if (!is_numeric(row[c]) && !std::holds_alternative<std::monostate>(row[c])) numeric[c] = false;
                }
            }
            return numeric;
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

    std::vector<std::vector<std::string>> format_table(const Table& table)
    {
        std::vector<std::vector<std::string>> texts(table.rows.size(), std::vector<std::string>(table.columns.size()));
        for (std::size_t c = 0; c < table.columns.size(); ++c)
        {
            std::vector<Cell> column;
            for (const Row& row : table.rows) column.push_back(c < row.size() ? row[c] : Cell{});
            const std::vector<std::string> formatted = format_column(column, table.columns[c].identifier);
            for (std::size_t r = 0; r < table.rows.size(); ++r) texts[r][c] = formatted[r];
        }
        return texts;
    }

    namespace
    {
        // Title, header, rule and rows: no notes.
        std::string table_text(const Table& table)
        {
            const std::vector<std::vector<std::string>> texts = format_table(table);
            std::vector<std::size_t> widths;
            for (const Column& column : table.columns)
            {
                widths.push_back(display_width(header(column)));
            }
            for (const std::vector<std::string>& row : texts)
            {
                for (std::size_t c = 0; c < row.size(); ++c)
                {
                    widths[c] = std::max(widths[c], display_width(row[c]));
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
            const std::vector<bool> numeric = numeric_columns(table);
            for (std::size_t r = 0; r < table.rows.size(); ++r)
            {
                for (std::size_t c = 0; c < table.columns.size(); ++c)
                {
                    out += (c ? "  " : "") + pad(texts[r][c], widths[c], numeric[c]);
                }
                out += "\n";
            }
            return out;
        }

        // Caption, header and rows: no notes.
        std::string table_html(const Table& table)
        {
            const std::vector<std::vector<std::string>> texts = format_table(table);
            std::string out = "<table><caption style=\"text-align:left;font-weight:bold\">" + escape_html(table.title) + "</caption><thead><tr>";
            for (const Column& column : table.columns)
            {
                out += "<th>" + escape_html(header(column)) + "</th>";
            }
            out += "</tr></thead><tbody>";
            const std::vector<bool> numeric = numeric_columns(table);
            for (std::size_t r = 0; r < table.rows.size(); ++r)
            {
                out += "<tr>";
                for (std::size_t c = 0; c < table.columns.size(); ++c)
                {
                    out += std::string(numeric[c] ? "<td style=\"text-align:right\">" : "<td style=\"text-align:left\">") +
                           escape_html(texts[r][c]) + "</td>";
                }
                out += "</tr>";
            }
            return out + "</tbody></table>";
        }

        std::string notes_html(const Table& table)
        {
            std::string out;
            for (const std::string& note : table.notes)
            {
                out += "<p style=\"margin:2px 0\">" + escape_html(note) + "</p>";
            }
            return out;
        }

        nl::json table_json(const Table& table)
        {
            nl::json columns = nl::json::array();
            for (const Column& column : table.columns)
            {
                columns.push_back({{"key", column.key}, {"title", column.title}, {"unit", column.unit}});
            }
            nl::json rows = nl::json::array();
            for (const Row& row : table.rows)
            {
                nl::json record = nl::json::object();
                for (std::size_t c = 0; c < table.columns.size() && c < row.size(); ++c)
                {
                    record[table.columns[c].key] = cell_json(row[c]);
                }
                rows.push_back(record);
            }
            return {{"title", table.title}, {"columns", columns}, {"rows", rows}, {"notes", table.notes}};
        }
    }

    std::string render_text(const Result& result)
    {
        const Table& table = result.table;
        std::string out = table_text(table);
        const std::string strip = result.chart ? chart_to_text(*result.chart) : "";
        if (!strip.empty())
        {
            out += strip + "\n";
        }
        for (const std::string& note : table.notes)
        {
            out += note + "\n";
        }
        for (const Table& more : result.more_tables)
        {
            out += "\n" + table_text(more);
            for (const std::string& note : more.notes) out += note + "\n";
        }
        if (!out.empty() && out.back() == '\n')
        {
            out.pop_back();
        }
        return out;
    }

    std::string render_html(const Result& result, const ChartImage* image)
    {
        std::string out = "<div class=\"gillab-result\">" + table_html(result.table) + notes_html(result.table);
        if (image && !image->png_base64.empty())
        {
            // The image has twice the pixels: the size attributes keep it sharp, not huge.
            out += "<img alt=\"" + escape_html(result.chart ? result.chart->title : "") + "\" width=\"" +
                   std::to_string(image->width) + "\" height=\"" + std::to_string(image->height) +
                   "\" src=\"data:image/png;base64," + image->png_base64 + "\"/>";
        }
        for (const Table& more : result.more_tables) out += table_html(more) + notes_html(more);
        return out + "</div>";
    }

    nl::json render_json(const Result& result)
    {
        const nl::json main = table_json(result.table);
        nl::json out = {{"schema", "gillab.result"},
                        {"schema_version", result_schema_version},
                        {"magic", result.magic},
                        {"title", main["title"]},
                        {"columns", main["columns"]},
                        {"rows", main["rows"]},
                        {"notes", main["notes"]},
                        {"data", result.data}};
        if (!result.more_tables.empty())
        {
            out["tables"] = nl::json::array();
            for (const Table& more : result.more_tables) out["tables"].push_back(table_json(more));
        }
        return out;
    }

    MimeBundle mime_bundle(const Result& result, const ChartImage* image)
    {
        MimeBundle bundle;
        if (result.chart)
        {
            if (image)
            {
                bundle.data["image/png"] = image->png_base64;
                bundle.metadata["image/png"] = {{"width", image->width}, {"height", image->height}};
            }
            ChartFigures figures{{}, format_table(result.table)};
            for (const Column& column : result.table.columns) figures.headers.push_back(header(column));
            bundle.data["application/vnd.vegalite.v5+json"] = chart_to_vegalite(*result.chart, figures);
        }
        bundle.data["text/plain"] = render_text(result);
        bundle.data["text/html"] = render_html(result, image);
        bundle.data[result_mime_type] = render_json(result);
        return bundle;
    }
}
