#include "render/chart_model.hpp"

#include <algorithm>
#include <cmath>

#include "render/number_format.hpp"

namespace gillab
{
    namespace
    {
        using json = nlohmann::json;

        const char* kind_name(Chart::Kind kind)
        {
            switch (kind)
            {
                case Chart::Kind::grouped_bars: return "grouped_bars";
                case Chart::Kind::lines: return "lines";
                case Chart::Kind::segments: return "segments";
            }
            return "grouped_bars";
        }

        json series_model(const Chart& chart, const ChartSeries& series)
        {
            json x = json::array();
            json y = json::array();
            json labels = json::array();
            const std::size_t count = std::min(series.x.size(), series.y.size());
            for (std::size_t i = 0; i < count; ++i)
            {
                if (!chart.plottable(series.x[i], series.y[i]))
                    continue;
                const bool bars = chart.kind == Chart::Kind::grouped_bars;
                x.push_back(bars ? json(*chart.category_index(series.x[i])) : json(series.x[i]));
                y.push_back(series.y[i]);
                if (bars) labels.push_back(format_short(series.y[i]));
            }
            json model = {{"name", series.name}, {"x", x}, {"y", y}};
            if (chart.kind == Chart::Kind::grouped_bars) model["labels"] = labels;
            return model;
        }
    }

    nlohmann::json chart_to_model(const Chart& chart)
    {
        json series = json::array();
        for (const ChartSeries& one : chart.series)
            series.push_back(series_model(chart, one));
        json rules = json::array();
        for (const ChartRule& rule : chart.rules)
        {
            if (std::isfinite(rule.y))
                rules.push_back({{"label", rule.label}, {"y", rule.y}});
        }
        json segments = json::array();
        for (const ChartSegment& segment : chart.segments)
        {
            if (chart.plottable(segment))
                segments.push_back({{"band", segment.band}, {"lane", segment.lane}, {"start", segment.start}, {"end", segment.end}});
        }
        return {{"kind", kind_name(chart.kind)},
                {"steps", chart.kind == Chart::Kind::lines && chart.steps},
                {"title", chart.title},
                {"x_title", chart.x_title},
                {"y_title", chart.y_title},
                {"categories", chart.categories},
                {"series", series},
                {"rules", rules},
                {"lanes", chart.lanes},
                {"bands", chart.bands},
                {"segments", segments}};
    }
}
