#include "render/chart_vegalite.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <set>
#include <string>

namespace gillab
{
    namespace
    {
        using json = nlohmann::json;

        constexpr int chart_width = 420;
        constexpr int chart_height = 240;
        constexpr const char* rule_colour = "#444444";

        bool is_bars(const Chart& chart)
        {
            return chart.kind == Chart::Kind::grouped_bars;
        }

        // An empty title hides the axis title instead of showing the field name.
        json title_or_none(const std::string& title)
        {
            return title.empty() ? json(nullptr) : json(title);
        }

        json data_row(const Chart& chart, const std::string& series, double x, double y)
        {
            if (is_bars(chart))
            {
                const std::string& category = chart.categories[*chart.category_index(x)];
                return {{"series", series}, {"category", category}, {"y", y}};
            }
            return {{"series", series}, {"x", x}, {"y", y}};
        }

        // The table cells points carry: the columns that any plotted point's
        // row fills. None (empty) unless every plotted point names a row, so
        // no tooltip mixes figures with a point's own values.
        std::set<std::size_t> figure_columns(const Chart& chart, const ChartFigures& figures)
        {
            std::set<std::size_t> used;
            for (const ChartSeries& series : chart.series)
            {
                const std::size_t count = std::min(series.x.size(), series.y.size());
                for (std::size_t i = 0; i < count; ++i)
                {
                    if (!chart.plottable(series.x[i], series.y[i]))
                        continue;
                    if (i >= series.rows.size() || series.rows[i] >= figures.rows.size())
                        return {};
                    const std::vector<std::string>& cells = figures.rows[series.rows[i]];
                    for (std::size_t c = 0; c < cells.size() && c < figures.headers.size(); ++c)
                    {
                        if (!cells[c].empty())
                            used.insert(c);
                    }
                }
            }
            return used;
        }

        std::string figure_field(std::size_t column)
        {
            return "cell_" + std::to_string(column);
        }

        json data_rows(const Chart& chart, const ChartFigures& figures, const std::set<std::size_t>& columns)
        {
            json rows = json::array();
            for (const ChartSeries& series : chart.series)
            {
                const std::size_t count = std::min(series.x.size(), series.y.size());
                for (std::size_t i = 0; i < count; ++i)
                {
                    if (!chart.plottable(series.x[i], series.y[i]))
                        continue;
                    json row = data_row(chart, series.name, series.x[i], series.y[i]);
                    for (std::size_t c : columns)
                    {
                        const std::vector<std::string>& cells = figures.rows[series.rows[i]];
                        row[figure_field(c)] = c < cells.size() ? cells[c] : "";
                    }
                    rows.push_back(row);
                }
            }
            return rows;
        }

        json series_names(const Chart& chart)
        {
            json names = json::array();
            for (const ChartSeries& series : chart.series)
                names.push_back(series.name);
            return names;
        }

        json y_encoding(const Chart& chart)
        {
            json y = {{"field", "y"}, {"type", "quantitative"}, {"title", title_or_none(chart.y_title)}};
            if (!is_bars(chart))
                y["scale"] = {{"zero", false}};
            return y;
        }

        json x_encoding(const Chart& chart)
        {
            const json title = title_or_none(chart.x_title);
            if (is_bars(chart))
            {
                return {{"field", "category"}, {"type", "nominal"}, {"title", title}, {"sort", chart.categories}, {"axis", {{"labelAngle", 0}}}};
            }
            return {{"field", "x"}, {"type", "quantitative"}, {"title", title}, {"scale", {{"zero", false}}}};
        }

        // A point's own values, when it stands for no single table row: three
        // significant digits and thousands separators, as the tables have.
        constexpr const char* value_format = ",.3~r";

        json tooltip(const Chart& chart, const ChartFigures& figures, const std::set<std::size_t>& columns)
        {
            if (!columns.empty())
            {
                json fields = json::array();
                for (std::size_t c : columns)
                    fields.push_back({{"field", figure_field(c)}, {"type", "nominal"}, {"title", figures.headers[c]}});
                return fields;
            }
            const std::string x_field = is_bars(chart) ? "category" : "x";
            const std::string x_type = is_bars(chart) ? "nominal" : "quantitative";
            const std::string y_title = chart.y_title.empty() ? "y" : chart.y_title;
            const std::string x_title = chart.x_title.empty() ? x_field : chart.x_title;
            json x = {{"field", x_field}, {"type", x_type}, {"title", x_title}};
            if (!is_bars(chart))
                x["format"] = value_format;
            return json::array({
                {{"field", "series"}, {"type", "nominal"}},
                x,
                {{"field", "y"}, {"type", "quantitative"}, {"title", y_title}, {"format", value_format}},
            });
        }

        json series_layer(const Chart& chart, const ChartFigures& figures, const std::set<std::size_t>& columns)
        {
            const json names = series_names(chart);
            json encoding = {
                {"x", x_encoding(chart)},
                {"y", y_encoding(chart)},
                {"color", {{"field", "series"}, {"type", "nominal"}, {"title", nullptr}, {"scale", {{"domain", names}}}}},
                {"tooltip", tooltip(chart, figures, columns)},
            };
            if (is_bars(chart))
            {
                encoding["xOffset"] = {{"field", "series"}, {"type", "nominal"}, {"sort", names}};
                return {{"mark", {{"type", "bar"}, {"tooltip", true}}}, {"encoding", encoding}};
            }
            json mark = {{"type", "line"}, {"point", true}, {"tooltip", true}};
            if (chart.steps) mark["interpolate"] = "step-before";
            return {{"mark", mark}, {"encoding", encoding}};
        }

        json rule_rows(const Chart& chart)
        {
            json rows = json::array();
            for (const ChartRule& rule : chart.rules)
            {
                if (std::isfinite(rule.y))
                    rows.push_back({{"label", rule.label}, {"y", rule.y}});
            }
            return rows;
        }

        json rule_line_layer(const json& rows)
        {
            return {
                {"data", {{"values", rows}}},
                {"mark", {{"type", "rule"}, {"color", rule_colour}, {"strokeDash", {6, 4}}, {"strokeWidth", 1.5}}},
                {"encoding", {{"y", {{"field", "y"}, {"type", "quantitative"}}}, {"tooltip", json::array({{{"field", "label"}, {"type", "nominal"}}, {{"field", "y"}, {"type", "quantitative"}, {"format", value_format}}})}}},
            };
        }

        json rule_label_layer(const json& rows)
        {
            return {
                {"data", {{"values", rows}}},
                {"mark", {{"type", "text"}, {"color", rule_colour}, {"align", "right"}, {"baseline", "bottom"}, {"dx", -4}, {"dy", -3}}},
                {"encoding", {{"x", {{"value", "width"}}}, {"y", {{"field", "y"}, {"type", "quantitative"}}}, {"text", {{"field", "label"}, {"type", "nominal"}}}}},
            };
        }

        json layers(const Chart& chart, const ChartFigures& figures, const std::set<std::size_t>& columns)
        {
            json all = json::array({series_layer(chart, figures, columns)});
            const json rules = rule_rows(chart);
            if (!rules.empty())
            {
                all.push_back(rule_line_layer(rules));
                all.push_back(rule_label_layer(rules));
            }
            return all;
        }

        // Segments: bars from start (x) to end (x2), a row per lane, a facet
        // row per band when there is more than one.
        json segment_rows(const Chart& chart)
        {
            json rows = json::array();
            for (const ChartSegment& segment : chart.segments)
            {
                if (!chart.plottable(segment))
                    continue;
                json row = {{"lane", chart.lanes[segment.lane]}, {"start", segment.start}, {"end", segment.end}};
                if (!chart.bands.empty())
                    row["band"] = chart.bands[segment.band];
                if (!segment.label.empty())
                    row["label"] = segment.label;
                rows.push_back(row);
            }
            return rows;
        }

        json segments_spec(const Chart& chart)
        {
            const json lanes = chart.lanes;
            const std::string x_title = chart.x_title.empty() ? "start" : chart.x_title;
            json tooltip = json::array({{{"field", "lane"}, {"type", "nominal"}},
                                        {{"field", "start"}, {"type", "quantitative"}, {"title", x_title}, {"format", value_format}},
                                        {{"field", "end"}, {"type", "quantitative"}, {"format", value_format}}});
            json encoding = {
                {"x", {{"field", "start"}, {"type", "quantitative"}, {"title", title_or_none(chart.x_title)}}},
                {"x2", {{"field", "end"}}},
                {"y", {{"field", "lane"}, {"type", "nominal"}, {"title", title_or_none(chart.y_title)}, {"sort", lanes}}},
                {"color", {{"field", "lane"}, {"type", "nominal"}, {"title", nullptr}, {"scale", {{"domain", lanes}}}}},
            };
            if (chart.bands.size() > 1)
            {
                encoding["row"] = {{"field", "band"}, {"type", "nominal"}, {"title", nullptr}, {"sort", chart.bands}};
                tooltip.push_back({{"field", "band"}, {"type", "nominal"}});
            }
            const bool labelled = std::any_of(chart.segments.begin(), chart.segments.end(),
                                              [](const ChartSegment& s) { return !s.label.empty(); });
            if (labelled)
                tooltip.push_back({{"field", "label"}, {"type", "nominal"}, {"title", "at"}});
            encoding["tooltip"] = tooltip;
            return {
                {"$schema", "https://vega.github.io/schema/vega-lite/v5.json"},
                {"width", chart_width},
                {"height", {{"step", 18}}},
                {"data", {{"values", segment_rows(chart)}}},
                {"mark", {{"type", "bar"}, {"tooltip", true}}},
                {"encoding", encoding},
            };
        }
    }

    nlohmann::json chart_to_vegalite(const Chart& chart, const ChartFigures& figures)
    {
        if (chart.kind == Chart::Kind::segments)
        {
            json spec = segments_spec(chart);
            if (!chart.title.empty())
                spec["title"] = chart.title;
            return spec;
        }
        const std::set<std::size_t> columns = figure_columns(chart, figures);
        json spec = {
            {"$schema", "https://vega.github.io/schema/vega-lite/v5.json"},
            {"width", chart_width},
            {"height", chart_height},
            {"data", {{"values", data_rows(chart, figures, columns)}}},
            {"layer", layers(chart, figures, columns)},
        };
        if (!chart.title.empty())
            spec["title"] = chart.title;
        return spec;
    }
}
