#include <gtest/gtest.h>

#include "core/render.hpp"

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
    EXPECT_NE(text.find("1.235"), std::string::npos) << text;
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
    std::string html = render_html(sample_result(false), "");
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

TEST(MimeBundle, ChartAddsVegaLiteAndPng)
{
    nl::json plain = mime_bundle(sample_result(false));
    EXPECT_FALSE(plain.contains("image/png"));
    nl::json charted = mime_bundle(sample_result(true));
    EXPECT_TRUE(charted.contains("image/png"));
    EXPECT_TRUE(charted.contains("application/vnd.vegalite.v5+json"));
    EXPECT_NE(charted["text/html"].get<std::string>().find("<img"), std::string::npos);
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
    const nl::json bundle = mime_bundle(result);
    EXPECT_EQ(bundle["application/vnd.vegalite.v5+json"]["mark"]["type"], "bar");
    EXPECT_FALSE(bundle["image/png"].get<std::string>().empty());
    EXPECT_NE(bundle["text/html"].get<std::string>().find("<img"), std::string::npos);
    EXPECT_NE(bundle["text/plain"].get<std::string>().find("thread A |#"), std::string::npos);
}
