// The chart model handed to the Python PNG renderer: the same points the
// Vega-Lite spec keeps, as plain data.
#include <limits>

#include <gtest/gtest.h>

#include "render/chart_model.hpp"
#include "render/chart_vegalite.hpp"

namespace gillab
{
    namespace
    {
        constexpr double nan = std::numeric_limits<double>::quiet_NaN();
        constexpr double inf = std::numeric_limits<double>::infinity();
    }

    TEST(ChartModel, NamesTheKindAndCarriesTheTitles)
    {
        Chart chart;
        chart.kind = Chart::Kind::lines;
        chart.title = "t";
        chart.x_title = "x (ms)";
        chart.y_title = "y (ms)";
        const nlohmann::json model = chart_to_model(chart);
        EXPECT_EQ(model.at("kind"), "lines");
        EXPECT_EQ(model.at("title"), "t");
        EXPECT_EQ(model.at("x_title"), "x (ms)");
        EXPECT_EQ(model.at("y_title"), "y (ms)");
        chart.kind = Chart::Kind::segments;
        EXPECT_EQ(chart_to_model(chart).at("kind"), "segments");
        EXPECT_EQ(chart_to_model(Chart{}).at("kind"), "grouped_bars");
    }

    TEST(ChartModel, KeepsExactlyThePointsTheVegaLiteSpecKeeps)
    {
        Chart chart;
        chart.categories = {"1", "2", "4"};
        chart.series = {{"threads", {0, 1, 2, 3, -1, nan, 1.2}, {1.0, 2.0, 3.0, 4.0, 5.0, 6.0, inf}},
                        {"processes", {0, 1}, {0.5}}};  // ragged: one point
        const nlohmann::json model = chart_to_model(chart);
        const nlohmann::json& threads = model.at("series").at(0);
        EXPECT_EQ(threads.at("name"), "threads");
        EXPECT_EQ(threads.at("x"), nlohmann::json({0, 1, 2}));  // category indices
        EXPECT_EQ(threads.at("y"), nlohmann::json({1.0, 2.0, 3.0}));
        EXPECT_EQ(threads.at("labels"), nlohmann::json({"1", "2", "3"}));
        EXPECT_EQ(model.at("series").at(1).at("y").size(), 1u);
        EXPECT_EQ(chart_to_vegalite(chart).at("data").at("values").size(), 4u);  // 3 + 1, as here
    }

    TEST(ChartModel, LinesKeepNumericXAndDropNonFinitePoints)
    {
        Chart chart;
        chart.kind = Chart::Kind::lines;
        chart.series = {{"gap", {0.5, 1.5, nan, 3.5}, {10.0, -inf, 12.0, 13.0}}};
        const nlohmann::json gap = chart_to_model(chart).at("series").at(0);
        EXPECT_EQ(gap.at("x"), nlohmann::json({0.5, 3.5}));
        EXPECT_EQ(gap.at("y"), nlohmann::json({10.0, 13.0}));
        EXPECT_FALSE(gap.contains("labels"));  // lines have too many points to label
    }

    TEST(ChartModel, StepsAreSaidForLinesOnly)
    {
        Chart chart;
        chart.kind = Chart::Kind::lines;
        EXPECT_EQ(chart_to_model(chart).at("steps"), false);
        chart.steps = true;
        EXPECT_EQ(chart_to_model(chart).at("steps"), true);
        chart.kind = Chart::Kind::grouped_bars;  // bars have no steps to draw
        EXPECT_EQ(chart_to_model(chart).at("steps"), false);
    }

    TEST(ChartModel, RulesAtNonFiniteHeightsAreLeftOut)
    {
        Chart chart;
        chart.rules = {{"sequential", 0.5}, {"broken", nan}};
        const nlohmann::json rules = chart_to_model(chart).at("rules");
        ASSERT_EQ(rules.size(), 1u);
        EXPECT_EQ(rules[0].at("label"), "sequential");
        EXPECT_EQ(rules[0].at("y"), 0.5);
    }

    TEST(ChartModel, SegmentsOutsideTheirLanesOrBandsOrReversedAreLeftOut)
    {
        Chart chart;
        chart.kind = Chart::Kind::segments;
        chart.lanes = {"thread A", "thread B"};
        chart.bands = {"5 ms"};
        chart.segments = {{0, 0, 0.0, 5.0}, {0, 1, 5.0, 9.0}, {0, 2, 1.0, 2.0}, {1, 0, 1.0, 2.0}, {0, 0, 3.0, 2.0}, {0, 1, nan, 2.0}};
        const nlohmann::json model = chart_to_model(chart);
        EXPECT_EQ(model.at("lanes"), nlohmann::json({"thread A", "thread B"}));
        EXPECT_EQ(model.at("bands"), nlohmann::json({"5 ms"}));
        ASSERT_EQ(model.at("segments").size(), 2u);
        EXPECT_EQ(model.at("segments")[1], nlohmann::json({{"band", 0}, {"lane", 1}, {"start", 5.0}, {"end", 9.0}}));
    }
}
