// The one result type every magic hands to the shared renderers.
// A magic fills a Table (what the text/HTML renderers show), an optional
// Chart, and a JSON payload (its figures, for code and for the JSON bundle).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace gillab
{
    namespace nl = nlohmann;

    // Bump when the shape of a magic's JSON payload changes incompatibly.
    inline constexpr int result_schema_version = 1;

    struct Column
    {
        std::string key;  // machine name, used in JSON
        std::string title;  // header shown to people
        std::string unit;  // "s", "ms", "x", "%", "" ...
        bool identifier = false;  // whole numbers that name, not count (a thread's ident): no separators
    };

    using Cell = std::variant<std::monostate, std::int64_t, double, std::string>;
    using Row = std::vector<Cell>;

    struct Table
    {
        std::string title;
        std::vector<Column> columns;
        std::vector<Row> rows;
        std::vector<std::string> notes;  // printed under the table, one per line
    };

    struct ChartSeries
    {
        std::string name;
        std::vector<double> x;  // bar charts: index into Chart::categories
        std::vector<double> y;
        // Per point, the Table row it stands for: its tooltip shows that row's
        // figures. Empty when a point sums up several rows (race's medians).
        std::vector<std::size_t> rows = {};
    };

    // A horizontal reference line: a published figure or a physical limit.
    struct ChartRule
    {
        std::string label;
        double y = 0.0;
    };

    // Kind::segments: one bar from start to end in one lane of one band, such
    // as the span a thread held the GIL (lane = thread, band = switch interval).
    struct ChartSegment
    {
        std::size_t band = 0;  // index into Chart::bands
        std::size_t lane = 0;  // index into Chart::lanes
        double start = 0.0;
        double end = 0.0;
        std::string label = {};  // shown on hover when set (gilwatch: the holder's line)
    };

    struct Chart
    {
        enum class Kind
        {
            grouped_bars,  // one group per category, one bar per series
            lines,  // numeric x, one polyline (with points) per series
            segments  // a strip per band, a row per lane, a bar per segment along x
        };

        Kind kind = Kind::grouped_bars;
        // lines only: each point's y held over the span since the series' previous point (a gap
        // or a wait that ended at x), so it is drawn as a step there, never as a ramp between points.
        bool steps = false;
        std::string title;
        std::string x_title;
        std::string y_title;
        std::vector<std::string> categories;
        std::vector<ChartSeries> series;
        std::vector<ChartRule> rules;
        // segments only (series, categories and rules are not drawn)
        std::vector<std::string> lanes;
        std::vector<std::string> bands;
        std::vector<ChartSegment> segments;

        // Kind::lines with steps: each point a span (a gap, a wait) that ended at its x.
        static Chart step_lines(std::string title, std::string x_title, std::string y_title)
        {
            Chart chart;
            chart.kind = Kind::lines;
            chart.steps = true;
            chart.title = std::move(title);
            chart.x_title = std::move(x_title);
            chart.y_title = std::move(y_title);
            return chart;
        }

        // Bar x values are indices into the categories; other values name none.
        std::optional<std::size_t> category_index(double x) const
        {
            const double rounded = std::round(x);
            if (!(rounded >= 0 && rounded < static_cast<double>(categories.size())))
                return std::nullopt;
            return static_cast<std::size_t>(rounded);
        }

        // Renderers skip points with a non-finite coordinate, and bars whose
        // index names no category.
        bool plottable(double x, double y) const
        {
            if (!std::isfinite(x) || !std::isfinite(y))
                return false;
            return kind != Kind::grouped_bars || category_index(x).has_value();
        }

        // Renderers skip segments that name no lane or band (band 0 when there
        // are no bands) or whose span is not finite and ordered.
        bool plottable(const ChartSegment& segment) const
        {
            return segment.lane < lanes.size() && segment.band < std::max<std::size_t>(bands.size(), 1) &&
                   std::isfinite(segment.start) && std::isfinite(segment.end) && segment.start <= segment.end;
        }
    };

    struct Result
    {
        std::string magic;  // "gilinfo", "gilbench", ...
        Table table;
        std::vector<Table> more_tables;  // shown after the first, each with its own notes (gilwatch's blame)
        std::optional<Chart> chart;
        nl::json data = nl::json::object();  // the magic's own figures
    };
}
