#include "render/chart_text.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "render/number_format.hpp"

namespace gillab
{
    namespace
    {
        constexpr std::size_t narrowest_strip = 20;

        std::size_t column_of(double x, double lo, double step, std::size_t columns)
        {
            const double at = std::floor((x - lo) / step);
            return static_cast<std::size_t>(std::clamp(at, 0.0, static_cast<double>(columns - 1)));
        }
    }

    std::string chart_to_text(const Chart& chart, std::size_t width)
    {
        if (chart.kind != Chart::Kind::segments)
            return "";
        double lo = std::numeric_limits<double>::infinity();
        double hi = -lo;
        for (const ChartSegment& segment : chart.segments)
        {
            if (!chart.plottable(segment))
                continue;
            lo = std::min(lo, segment.start);
            hi = std::max(hi, segment.end);
        }
        if (!(lo < hi))
            return "";

        std::size_t label_width = 0;
        for (const std::string& lane : chart.lanes)
            label_width = std::max(label_width, lane.size());
        const std::size_t margin = 2 + label_width + 2;  // indent, label, " |"
        const std::size_t columns = std::max(narrowest_strip, width > margin + 1 ? width - margin - 1 : 0);
        const double step = (hi - lo) / static_cast<double>(columns);

        // covered[band][lane][column]: how much of the column's span the lane held
        const std::size_t band_count = std::max<std::size_t>(chart.bands.size(), 1);
        std::vector<std::vector<std::vector<double>>> covered(
            band_count, std::vector<std::vector<double>>(chart.lanes.size(), std::vector<double>(columns, 0.0)));
        for (const ChartSegment& segment : chart.segments)
        {
            if (!chart.plottable(segment))
                continue;
            auto& row = covered[segment.band][segment.lane];
            const std::size_t first = column_of(segment.start, lo, step, columns);
            const std::size_t last = column_of(segment.end, lo, step, columns);
            for (std::size_t c = first; c <= last; ++c)
            {
                const double left = lo + static_cast<double>(c) * step;
                const double overlap = std::min(segment.end, left + step) - std::max(segment.start, left);
                if (overlap > 0)
                    row[c] += overlap;
                else if (segment.start == segment.end)
                    row[c] = std::max(row[c], std::numeric_limits<double>::min());  // an instant shows as '.'
            }
        }

        std::string out = (chart.title.empty() ? std::string() : chart.title + "\n") + "'#' = most of a column, '.' = part of it; " +
                          (chart.x_title.empty() ? std::string("x") : chart.x_title) + " " + format_figure(lo) + " to " +
                          format_figure(hi) + ", " + format_figure(step) + " per column\n";
        for (std::size_t band = 0; band < band_count; ++band)
        {
            if (!chart.bands.empty())
                out += chart.bands[band] + "\n";
            for (std::size_t lane = 0; lane < chart.lanes.size(); ++lane)
            {
                std::string strip;
                for (double held : covered[band][lane])
                    strip += held >= step / 2 ? '#' : held > 0 ? '.'
                                                               : ' ';
                out += "  " + chart.lanes[lane] + std::string(label_width - chart.lanes[lane].size(), ' ') + " |" + strip + "|\n";
            }
        }
        out.pop_back();
        return out;
    }
}
