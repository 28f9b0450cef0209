// libFuzzer target for the shared renderers: arbitrary Results (any UTF-8 or
// not, NaN and infinite figures, ragged rows, charts with stray indices)
// through text, HTML, JSON, Vega-Lite and the chart model the PNG is drawn
// from (in Python, not here); the bundle and the model must serialise.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include <fuzzer/FuzzedDataProvider.h>

#include "render/render.hpp"
#include "render/chart_model.hpp"

namespace
{
    using namespace gillab;

    std::string text(FuzzedDataProvider& in)
    {
        return in.ConsumeRandomLengthString(64);
    }

    double figure(FuzzedDataProvider& in)
    {
        switch (in.ConsumeIntegralInRange(0, 7))
        {
            case 0: return std::numeric_limits<double>::quiet_NaN();
            case 1: return std::numeric_limits<double>::infinity();
            case 2: return -std::numeric_limits<double>::infinity();
            case 3: return std::numeric_limits<double>::max();
            case 4: return std::numeric_limits<double>::denorm_min();
            default: return in.ConsumeFloatingPoint<double>();
        }
    }

    Cell cell(FuzzedDataProvider& in)
    {
        switch (in.ConsumeIntegralInRange(0, 3))
        {
            case 0: return std::monostate{};
            case 1: return in.ConsumeIntegral<std::int64_t>();
            case 2: return figure(in);
            default: return text(in);
        }
    }

    Result generated(FuzzedDataProvider& in)
    {
        Result result;
        result.magic = text(in);
        result.table.title = text(in);
        for (int c = in.ConsumeIntegralInRange(0, 6); c > 0; --c)
            result.table.columns.push_back({text(in), text(in), text(in)});
        for (int r = in.ConsumeIntegralInRange(0, 8); r > 0; --r)
        {
            Row row;
            for (int c = in.ConsumeIntegralInRange(0, 8); c > 0; --c) row.push_back(cell(in));
            result.table.rows.push_back(row);
        }
        for (int n = in.ConsumeIntegralInRange(0, 3); n > 0; --n) result.table.notes.push_back(text(in));
        if (in.ConsumeBool())
        {
            Chart chart;
            const Chart::Kind kinds[] = {Chart::Kind::grouped_bars, Chart::Kind::lines, Chart::Kind::segments};
            chart.kind = kinds[in.ConsumeIntegralInRange(0, 2)];
            chart.title = text(in);
            chart.x_title = text(in);
            chart.y_title = text(in);
            for (int c = in.ConsumeIntegralInRange(0, 12); c > 0; --c) chart.categories.push_back(text(in));
            for (int s = in.ConsumeIntegralInRange(0, 6); s > 0; --s)
            {
                ChartSeries series{text(in), {}, {}};
                for (int p = in.ConsumeIntegralInRange(0, 16); p > 0; --p) series.x.push_back(figure(in));
                for (int p = in.ConsumeIntegralInRange(0, 16); p > 0; --p) series.y.push_back(figure(in));
                // table rows the points stand for (tooltips), some past the table's end
                for (int p = in.ConsumeIntegralInRange(0, 16); p > 0; --p)
                    series.rows.push_back(in.ConsumeIntegralInRange<std::size_t>(0, 9));
                chart.series.push_back(series);
            }
            for (int r = in.ConsumeIntegralInRange(0, 3); r > 0; --r) chart.rules.push_back({text(in), figure(in)});
            for (int l = in.ConsumeIntegralInRange(0, 4); l > 0; --l) chart.lanes.push_back(text(in));
            for (int b = in.ConsumeIntegralInRange(0, 3); b > 0; --b) chart.bands.push_back(text(in));
            for (int g = in.ConsumeIntegralInRange(0, 16); g > 0; --g)
                chart.segments.push_back({in.ConsumeIntegralInRange<std::size_t>(0, 4), in.ConsumeIntegralInRange<std::size_t>(0, 5),
                                          figure(in), figure(in)});
            result.chart = chart;
        }
        return result;
    }
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    FuzzedDataProvider in(data, size);
    const Result result = generated(in);
    render_text(result);
    const ChartImage image{"iVBORw0KGgo=", 640, 360};
    render_html(result, &image);
    // The kernel sends bundles with invalid UTF-8 replaced, as here.
    const MimeBundle bundle = mime_bundle(result, result.chart ? &image : nullptr);
    bundle.data.dump(-1, ' ', false, nl::json::error_handler_t::replace);
    bundle.metadata.dump();
    if (result.chart) chart_to_model(*result.chart).dump(-1, ' ', false, nl::json::error_handler_t::replace);
    return 0;
}
