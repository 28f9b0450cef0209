// Chart renderers in C++: the Vega-Lite spec and the text strip (the PNG is
// drawn in Python: tests/kernel/test_charts.py).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "render/chart_text.hpp"
#include "render/chart_vegalite.hpp"

namespace gillab
{
    namespace
    {
        constexpr double nan = std::numeric_limits<double>::quiet_NaN();
        constexpr double inf = std::numeric_limits<double>::infinity();

        // ---- sample charts

        Chart speedup_bars()
        {
            Chart chart;
            chart.title = "Speed-up";
            chart.x_title = "workers";
            chart.y_title = "speed-up (x)";
            chart.categories = {"1", "2", "4", "8"};
            chart.series = {{"sequential", {0, 1, 2, 3}, {1.0, 1.0, 1.0, 1.0}},
                            {"threads", {0, 1, 2, 3}, {0.98, 0.95, 0.91, 0.88}},
                            {"processes", {0, 1, 2, 3}, {0.93, 1.82, 1.95, 1.9}}};
            chart.rules = {{"2 cores: 2x limit", 2.0}};
            return chart;
        }

        Chart latency_lines()
        {
            Chart chart;
            chart.kind = Chart::Kind::lines;
            chart.title = "Latency";
            chart.x_title = "payload (KiB)";
            chart.y_title = "ms";
            chart.series = {{"pipe", {1, 4, 16, 64}, {0.02, 0.03, 0.09, 0.31}},
                            {"queue", {1, 4, 16, 64}, {0.05, 0.07, 0.16, 0.52}}};
            return chart;
        }

        const nlohmann::json* layer_with_mark(const nlohmann::json& spec, const std::string& mark)
        {
            for (const auto& layer : spec.at("layer"))
            {
                if (layer.at("mark").at("type") == mark)
                    return &layer;
            }
            return nullptr;
        }
    }

    // ---- PNG

    // ---- Vega-Lite

    TEST(ChartVegaLite, DeclaresTheV5Schema)
    {
        const nlohmann::json spec = chart_to_vegalite(speedup_bars());
        EXPECT_EQ(spec.at("$schema"), "https://vega.github.io/schema/vega-lite/v5.json");
        EXPECT_EQ(spec.at("title"), "Speed-up");
        EXPECT_GT(spec.at("width").get<int>(), 0);
        EXPECT_GT(spec.at("height").get<int>(), 0);
    }

    std::vector<std::string> tooltip_titles(const nlohmann::json& layer)
    {
        std::vector<std::string> titles;
        for (const nlohmann::json& field : layer.at("encoding").at("tooltip"))
            titles.push_back(field.value("title", field.at("field").get<std::string>()));
        return titles;
    }

    // Rows 0-3 of a made-up table; threads and processes bars at 1 and 2 workers name them.
    ChartFigures speedup_figures()
    {
        return {{"mode", "workers", "speed-up (x)", "flags"},
                {{"threads", "1", "0.98", ""}, {"threads", "2", "0.95", "too noisy"}, {"processes", "1", "0.93", ""}, {"processes", "2", "1.82", ""}}};
    }

    Chart speedup_bars_with_rows()
    {
        Chart chart = speedup_bars();
        chart.series = {{"threads", {0, 1}, {0.98, 0.95}, {0, 1}}, {"processes", {0, 1}, {0.93, 1.82}, {2, 3}}};
        return chart;
    }

    TEST(ChartVegaLite, ABarThatNamesItsTableRowCarriesThatRowsCellsAndItsTooltipListsThemUnderTheHeaders)
    {
        const nlohmann::json spec = chart_to_vegalite(speedup_bars_with_rows(), speedup_figures());
        const nlohmann::json* bars = layer_with_mark(spec, "bar");
        ASSERT_NE(bars, nullptr);
        EXPECT_EQ(tooltip_titles(*bars), (std::vector<std::string>{"mode", "workers", "speed-up (x)", "flags"}));
        const nlohmann::json& rows = spec.at("data").at("values");
        ASSERT_EQ(rows.size(), 4u);
        const auto processes_at_2 = std::find_if(rows.begin(), rows.end(), [](const nlohmann::json& row) {
            return row.at("series") == "processes" && row.at("category") == "2";
        });
        ASSERT_NE(processes_at_2, rows.end());
        EXPECT_EQ(processes_at_2->at("cell_0"), "processes");
        EXPECT_EQ(processes_at_2->at("cell_2"), "1.82");  // as the table prints it, not the raw double
        EXPECT_EQ(processes_at_2->at("cell_3"), "");  // a blank cell stays blank, not undefined
        EXPECT_EQ(rows.at(1).at("cell_3"), "too noisy");
        // the encoding still reads the raw figures
        EXPECT_EQ(processes_at_2->at("y"), 1.82);
    }

    TEST(ChartVegaLite, AColumnNoPlottedRowFillsIsLeftOutOfTheTooltip)
    {
        ChartFigures figures = speedup_figures();
        figures.rows[1][3] = "";
        const nlohmann::json spec = chart_to_vegalite(speedup_bars_with_rows(), figures);
        EXPECT_EQ(tooltip_titles(*layer_with_mark(spec, "bar")),
                  (std::vector<std::string>{"mode", "workers", "speed-up (x)"}));
        EXPECT_FALSE(spec.at("data").at("values").at(0).contains("cell_3"));
    }

    TEST(ChartVegaLite, OnePointWithoutARowMakesEveryTooltipShowItsOwnValues)
    {
        Chart chart = speedup_bars_with_rows();
        chart.series[1].rows = {2};  // processes at 2 workers names no row
        const nlohmann::json spec = chart_to_vegalite(chart, speedup_figures());
        EXPECT_EQ(tooltip_titles(*layer_with_mark(spec, "bar")),
                  (std::vector<std::string>{"series", "workers", "speed-up (x)"}));
        for (const nlohmann::json& row : spec.at("data").at("values"))
            EXPECT_FALSE(row.contains("cell_0")) << row;
        // a row index past the table counts as no row
        chart.series[1].rows = {2, 9};
        EXPECT_FALSE(chart_to_vegalite(chart, speedup_figures()).at("data").at("values").at(0).contains("cell_0"));
    }

    TEST(ChartVegaLite, PointsLeftOutOfTheDataNeedNoRow)
    {
        Chart chart = speedup_bars_with_rows();
        chart.series[1].x.push_back(1);
        chart.series[1].y.push_back(nan);  // not plotted, names no row
        const nlohmann::json spec = chart_to_vegalite(chart, speedup_figures());
        EXPECT_EQ(tooltip_titles(*layer_with_mark(spec, "bar")).front(), "mode");
    }

    TEST(ChartVegaLite, TooltipsOfOwnValuesGroupThousandsWithAFewSignificantDigits)
    {
        const nlohmann::json spec = chart_to_vegalite(latency_lines());
        const nlohmann::json& tooltip = layer_with_mark(spec, "line")->at("encoding").at("tooltip");
        EXPECT_EQ(tooltip.at(1).at("field"), "x");
        EXPECT_EQ(tooltip.at(1).at("format"), ",.3~r");
        EXPECT_EQ(tooltip.at(2).at("field"), "y");
        EXPECT_EQ(tooltip.at(2).at("format"), ",.3~r");
        const nlohmann::json rule = layer_with_mark(chart_to_vegalite(speedup_bars()), "rule")->at("encoding").at("tooltip");
        EXPECT_EQ(rule.at(1).at("format"), ",.3~r");
    }

    TEST(ChartVegaLite, GroupedBarsUseBarMarksOffsetBySeries)
    {
        const nlohmann::json spec = chart_to_vegalite(speedup_bars());
        const nlohmann::json* bars = layer_with_mark(spec, "bar");
        ASSERT_NE(bars, nullptr);
        EXPECT_EQ(bars->at("encoding").at("xOffset").at("field"), "series");
        EXPECT_EQ(bars->at("encoding").at("x").at("field"), "category");
        EXPECT_EQ(bars->at("encoding").at("color").at("field"), "series");
        EXPECT_EQ(layer_with_mark(spec, "line"), nullptr);
    }

    TEST(ChartVegaLite, LinesUseLineMarksWithPoints)
    {
        const nlohmann::json spec = chart_to_vegalite(latency_lines());
        const nlohmann::json* lines = layer_with_mark(spec, "line");
        ASSERT_NE(lines, nullptr);
        EXPECT_EQ(lines->at("mark").at("point"), true);
        EXPECT_EQ(lines->at("encoding").at("x").at("type"), "quantitative");
        EXPECT_EQ(layer_with_mark(spec, "bar"), nullptr);
    }

    TEST(ChartVegaLite, StepLinesHoldEachValueSinceThePreviousPointInsteadOfRampingToIt)
    {
        Chart chart = latency_lines();
        EXPECT_FALSE(layer_with_mark(chart_to_vegalite(chart), "line")->at("mark").contains("interpolate"));
        chart.steps = true;
        const nlohmann::json spec = chart_to_vegalite(chart);  // the layer points into it
        const nlohmann::json* lines = layer_with_mark(spec, "line");
        ASSERT_NE(lines, nullptr);
        EXPECT_EQ(lines->at("mark").at("interpolate"), "step-before");
    }

    TEST(ChartVegaLite, HasOneRowPerFinitePoint)
    {
        Chart chart = speedup_bars();
        chart.series[0].y[1] = nan;
        chart.series[1].y[2] = inf;
        chart.series[2] = {"partial", {0, 3}, {1.5, 2.5}};  // no bars for categories 2 and 4
        const nlohmann::json rows = chart_to_vegalite(chart).at("data").at("values");
        ASSERT_EQ(rows.size(), 3u + 3u + 2u);
        EXPECT_EQ(rows.back().at("series"), "partial");
        EXPECT_EQ(rows.back().at("category"), "8");
        EXPECT_EQ(rows.back().at("y"), 2.5);
    }

    TEST(ChartVegaLite, LineRowsCarryNumericX)
    {
        const nlohmann::json rows = chart_to_vegalite(latency_lines()).at("data").at("values");
        ASSERT_EQ(rows.size(), 8u);
        EXPECT_EQ(rows[1].at("x"), 4.0);
        EXPECT_EQ(rows[1].at("series"), "pipe");
    }

    TEST(ChartVegaLite, DropsBarsWhoseIndexNamesNoCategory)
    {
        Chart chart;
        chart.categories = {"a", "b"};
        chart.series = {{"s", {0, 1, 2, -1, nan}, {1, 2, 3, 4, 5}}};
        EXPECT_EQ(chart_to_vegalite(chart).at("data").at("values").size(), 2u);
    }

    TEST(ChartVegaLite, RulesGetADashedRuleLayerWithLabels)
    {
        const nlohmann::json spec = chart_to_vegalite(speedup_bars());
        const nlohmann::json* rule = layer_with_mark(spec, "rule");
        ASSERT_NE(rule, nullptr);
        EXPECT_TRUE(rule->at("mark").contains("strokeDash"));
        EXPECT_EQ(rule->at("data").at("values").at(0).at("y"), 2.0);
        const nlohmann::json* label = layer_with_mark(spec, "text");
        ASSERT_NE(label, nullptr);
        EXPECT_EQ(label->at("data").at("values").at(0).at("label"), "2 cores: 2x limit");
    }

    TEST(ChartVegaLite, NoRuleLayerWithoutRules)
    {
        const nlohmann::json spec = chart_to_vegalite(latency_lines());
        EXPECT_EQ(layer_with_mark(spec, "rule"), nullptr);
        EXPECT_EQ(spec.at("layer").size(), 1u);
    }

    TEST(ChartVegaLite, EmptyChartStillMakesAValidSpec)
    {
        const nlohmann::json spec = chart_to_vegalite(Chart{});
        EXPECT_TRUE(spec.at("data").at("values").empty());
        EXPECT_FALSE(spec.contains("title"));
        EXPECT_NE(layer_with_mark(spec, "bar"), nullptr);
    }

    // ---- segment charts (ownership strips)

    namespace
    {
        // Thread A holds the first half of each band, thread B the second.
        Chart ownership_strips(std::vector<std::string> bands)
        {
            Chart chart;
            chart.kind = Chart::Kind::segments;
            chart.title = "Who held the GIL";
            chart.x_title = "time (ms)";
            chart.lanes = {"thread A", "thread B"};
            chart.bands = bands;
            for (std::size_t band = 0; band < std::max<std::size_t>(bands.size(), 1); ++band)
            {
                chart.segments.push_back({band, 0, 0.0, 50.0});
                chart.segments.push_back({band, 1, 50.0, 100.0});
            }
            return chart;
        }

        std::vector<std::string> lines_of(const std::string& text)
        {
            std::vector<std::string> lines;
            std::size_t at = 0;
            while (at <= text.size())
            {
                const std::size_t end = std::min(text.find('\n', at), text.size());
                lines.push_back(text.substr(at, end - at));
                at = end + 1;
            }
            return lines;
        }

        // The strip of the first line naming this lane: what lies between the bars.
        std::string strip_of(const std::string& text, const std::string& lane)
        {
            for (const std::string& line : lines_of(text))
            {
                if (line.find(lane) != std::string::npos && line.find('|') != std::string::npos)
                    return line.substr(line.find('|') + 1, line.rfind('|') - line.find('|') - 1);
            }
            return "";
        }
    }

    TEST(ChartVegaLite, SegmentsAreBarsFromStartToEndWithALanePerRow)
    {
        const nlohmann::json spec = chart_to_vegalite(ownership_strips({"5 ms"}));
        EXPECT_FALSE(spec.contains("layer"));
        EXPECT_EQ(spec.at("mark").at("type"), "bar");
        const nlohmann::json& encoding = spec.at("encoding");
        EXPECT_EQ(encoding.at("x").at("field"), "start");
        EXPECT_EQ(encoding.at("x2").at("field"), "end");
        EXPECT_EQ(encoding.at("y").at("field"), "lane");
        EXPECT_EQ(encoding.at("y").at("sort"), nlohmann::json({"thread A", "thread B"}));
        EXPECT_FALSE(encoding.contains("row"));  // one band: no facets
        const nlohmann::json& values = spec.at("data").at("values");
        ASSERT_EQ(values.size(), 2u);
        EXPECT_EQ(values.at(1).at("lane"), "thread B");
        EXPECT_EQ(values.at(1).at("start"), 50.0);
        EXPECT_EQ(values.at(1).at("end"), 100.0);
        EXPECT_EQ(values.at(1).at("band"), "5 ms");
        // round trip: what the kernel sends is JSON a front end can parse
        EXPECT_EQ(nlohmann::json::parse(spec.dump()), spec);
    }

    TEST(ChartVegaLite, SeveralBandsBecomeFacetRowsInOrder)
    {
        const nlohmann::json spec = chart_to_vegalite(ownership_strips({"5 ms", "1 ms"}));
        EXPECT_EQ(spec.at("encoding").at("row").at("field"), "band");
        EXPECT_EQ(spec.at("encoding").at("row").at("sort"), nlohmann::json({"5 ms", "1 ms"}));
        EXPECT_EQ(spec.at("data").at("values").size(), 4u);
    }

    TEST(ChartVegaLite, SegmentsWithBadSpansOrIndicesAreLeftOut)
    {
        Chart chart = ownership_strips({"5 ms"});
        chart.segments.push_back({0, 0, nan, 1.0});
        chart.segments.push_back({0, 0, 3.0, 2.0});  // reversed
        chart.segments.push_back({0, 2, 1.0, 2.0});  // no such lane
        chart.segments.push_back({1, 0, 1.0, 2.0});  // no such band
        EXPECT_EQ(chart_to_vegalite(chart).at("data").at("values").size(), 2u);
    }

    TEST(ChartText, SegmentsBecomeOneStripPerLaneWithinTheWidth)
    {
        // 81 characters leave an even number of columns: none straddles the hand-over at 50
        const std::string text = chart_to_text(ownership_strips({"5 ms", "1 ms"}), 81);
        for (const std::string& line : lines_of(text))
            EXPECT_LE(line.size(), 81u) << line;
        EXPECT_NE(text.find("5 ms\n"), std::string::npos);
        EXPECT_NE(text.find("1 ms\n"), std::string::npos);
        const std::string a = strip_of(text, "thread A");
        const std::string b = strip_of(text, "thread B");
        ASSERT_EQ(a.size(), 68u);
        ASSERT_EQ(b.size(), 68u);
        const std::size_t half = a.size() / 2;
        EXPECT_EQ(a, std::string(half, '#') + std::string(a.size() - half, ' '));
        EXPECT_EQ(b, std::string(half, ' ') + std::string(b.size() - half, '#'));
    }

    TEST(ChartText, ASegmentShorterThanAColumnStillShows)
    {
        Chart chart = ownership_strips({});
        chart.segments.push_back({0, 1, 10.0, 10.01});
        const std::string a = strip_of(chart_to_text(chart, 80), "thread B");
        EXPECT_NE(a.find('.'), std::string::npos) << a;
    }

    TEST(ChartText, OnlySegmentChartsHaveATextForm)
    {
        EXPECT_EQ(chart_to_text(speedup_bars()), "");
        EXPECT_EQ(chart_to_text(latency_lines()), "");
        Chart empty = ownership_strips({});
        empty.segments.clear();
        EXPECT_EQ(chart_to_text(empty), "");
    }
}
