#include <gtest/gtest.h>

#include "render/render.hpp"

using namespace gillab;

namespace
{
    Result sample_result(bool with_chart)
    {
        Result result;
        result.magic = "sample";
        result.table.title = "Sample";
        result.table.columns = {{"mode", "Mode", ""}, {"wall", "Wall", "s"}, {"count", "Count", ""}};
        result.table.rows = {{std::string("threads"), 1.23456, std::int64_t(8)},
                             {std::string("processes<b>"), 0.5, std::int64_t(16)}};
        result.table.notes = {"a note"};
        result.data = {{"answer", 42}};
        if (with_chart)
        {
            Chart chart;
            chart.title = "chart";
            chart.categories = {"1", "2"};
            chart.series = {{"threads", {0, 1}, {1.0, 2.0}}};
            result.chart = chart;
        }
        return result;
    }
}

TEST(RenderText, AlignedTableWithUnitsInHeaders)
{
    std::string text = render_text(sample_result(false));
    EXPECT_NE(text.find("Wall (s)"), std::string::npos) << text;
    EXPECT_NE(text.find("1.23"), std::string::npos) << text;
    EXPECT_NE(text.find("0.500"), std::string::npos) << text;  // the column's significant digits
    EXPECT_NE(text.find("a note"), std::string::npos) << text;
    // every table line has the same width as the rule under the header
    std::vector<std::string> lines;
    std::stringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    ASSERT_GE(lines.size(), 5u);
    EXPECT_EQ(lines[1].size(), lines[2].size());
    EXPECT_EQ(lines[2].size(), lines[3].size());
}

TEST(RenderHtml, EscapesText)
{
    std::string html = render_html(sample_result(false), nullptr);
    EXPECT_NE(html.find("processes&lt;b&gt;"), std::string::npos);
    EXPECT_EQ(html.find("<img"), std::string::npos);
}

TEST(RenderJson, VersionedRecords)
{
    nl::json json = render_json(sample_result(false));
    EXPECT_EQ(json["schema"], "gillab.result");
    EXPECT_EQ(json["schema_version"], result_schema_version);
    EXPECT_EQ(json["rows"][1]["count"], 16);
    EXPECT_EQ(json["data"]["answer"], 42);
}

TEST(MimeBundle, ChartAddsVegaLiteAndTheGivenPngWithItsDisplaySize)
{
    const ChartImage image{"iVBORw0KGgo=", 640, 360};
    MimeBundle plain = mime_bundle(sample_result(false), &image);
    EXPECT_FALSE(plain.data.contains("image/png"));
    EXPECT_TRUE(plain.metadata.empty());
    MimeBundle charted = mime_bundle(sample_result(true), &image);
    EXPECT_EQ(charted.data["image/png"], "iVBORw0KGgo=");
    EXPECT_EQ(charted.metadata["image/png"], nl::json({{"width", 640}, {"height", 360}}));
    EXPECT_TRUE(charted.data.contains("application/vnd.vegalite.v5+json"));
    const std::string html = charted.data["text/html"];
    EXPECT_NE(html.find("<img alt=\"chart\" width=\"640\" height=\"360\" src=\"data:image/png;base64,iVBORw0KGgo=\""),
              std::string::npos)
        << html;
    // without an image (no Python to draw it) the rest is still there
    MimeBundle undrawn = mime_bundle(sample_result(true), nullptr);
    EXPECT_FALSE(undrawn.data.contains("image/png"));
    EXPECT_TRUE(undrawn.data.contains("application/vnd.vegalite.v5+json"));
    EXPECT_EQ(undrawn.data["text/html"].get<std::string>().find("<img"), std::string::npos);
}

TEST(MimeBundle, VegaLitePointsCarryTheirTableRowAsTheTablePrintsIt)
{
    Result result = sample_result(true);
    result.chart->series = {{"threads", {0, 1}, {1.23456, 0.5}, {0, 1}}};
    const MimeBundle bundle = mime_bundle(result, nullptr);
    const nl::json& spec = bundle.data["application/vnd.vegalite.v5+json"];
    const nl::json& point = spec["data"]["values"][1];
    EXPECT_EQ(point["cell_0"], "processes<b>");
    EXPECT_EQ(point["cell_1"], "0.500");  // the column's significant digits, as in text/plain
    EXPECT_EQ(point["cell_2"], "16");
    const nl::json& tooltip = spec["layer"][0]["encoding"]["tooltip"];
    ASSERT_EQ(tooltip.size(), 3u);
    EXPECT_EQ(tooltip[1]["title"], "Wall (s)");  // units in the header, as the table's
}

TEST(RenderText, NumbersGetSeparatorsAndOneSignificanceDownAColumn)
{
    Result result;
    result.table.columns = {{"rate", "spinner rate", "steps/s"}, {"count", "count", ""}};
    result.table.rows = {{318513.4, std::int64_t(12345)}, {1234.5678, std::int64_t(2)}};
    const std::string text = render_text(result);
    EXPECT_NE(text.find("spinner rate (steps/s)"), std::string::npos) << text;
    EXPECT_NE(text.find("318,513"), std::string::npos) << text;
    EXPECT_NE(text.find("  1,235"), std::string::npos) << text;  // right-aligned under 318,513
    EXPECT_NE(text.find("12,345"), std::string::npos) << text;
    const std::string html = render_html(result, nullptr);
    EXPECT_NE(html.find(">318,513<"), std::string::npos) << html;
}

TEST(RenderText, SegmentChartAddsItsStripBetweenRowsAndNotes)
{
    Result result = sample_result(false);
    Chart chart;
    chart.kind = Chart::Kind::segments;
    chart.lanes = {"thread A", "thread B"};
    chart.segments = {{0, 0, 0.0, 5.0}, {0, 1, 5.0, 10.0}};
    result.chart = chart;
    const std::string text = render_text(result);
    const std::size_t strip = text.find("thread A |");
    ASSERT_NE(strip, std::string::npos) << text;
    EXPECT_LT(text.find("processes<b>"), strip);
    EXPECT_LT(strip, text.find("a note"));
    // bar and line charts stay out of text/plain
    EXPECT_EQ(render_text(sample_result(true)).find('|'), std::string::npos);
}

TEST(MimeBundle, SegmentChartGetsEveryForm)
{
    Result result = sample_result(false);
    Chart chart;
    chart.kind = Chart::Kind::segments;
    chart.lanes = {"thread A"};
    chart.segments = {{0, 0, 0.0, 5.0}};
    result.chart = chart;
    const ChartImage image{"iVBORw0KGgo=", 640, 160};
    const MimeBundle bundle = mime_bundle(result, &image);
    EXPECT_EQ(bundle.data["application/vnd.vegalite.v5+json"]["mark"]["type"], "bar");
    EXPECT_EQ(bundle.metadata["image/png"]["height"], 160);
    EXPECT_NE(bundle.data["text/html"].get<std::string>().find("<img"), std::string::npos);
    EXPECT_NE(bundle.data["text/plain"].get<std::string>().find("thread A |#"), std::string::npos);
}

TEST(MimeBundle, FiguresTravelUnderGillabsOwnTypeNotApplicationJson)
{
    const MimeBundle bundle = mime_bundle(sample_result(true), nullptr);
    EXPECT_FALSE(bundle.data.contains("application/json"));  // stock JupyterLab would show it first
    ASSERT_TRUE(bundle.data.contains("application/vnd.gillab.result+json"));
    EXPECT_EQ(bundle.data["application/vnd.gillab.result+json"], render_json(sample_result(true)));
}
