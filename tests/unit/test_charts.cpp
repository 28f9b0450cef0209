// Chart renderers: base64, the PNG rasterizer and the Vega-Lite spec.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <zlib.h>

#include "render/base64.hpp"
#include "render/chart_png.hpp"
#include "render/chart_text.hpp"
#include "render/chart_vegalite.hpp"

namespace gillab
{
    namespace
    {
        constexpr double nan = std::numeric_limits<double>::quiet_NaN();
        constexpr double inf = std::numeric_limits<double>::infinity();

        // ---- a minimal PNG reader for 8-bit RGB images with filter 0 rows

        struct Chunk
        {
            std::string type;
            std::string data;
            std::uint32_t crc = 0;
        };

        std::uint32_t read_be32(const std::string& bytes, std::size_t at)
        {
            std::uint32_t value = 0;
            for (std::size_t i = 0; i < 4; ++i)
                value = value << 8 | static_cast<unsigned char>(bytes.at(at + i));
            return value;
        }

        std::vector<Chunk> chunks_of(const std::string& png)
        {
            std::vector<Chunk> chunks;
            for (std::size_t at = 8; at + 12 <= png.size();)
            {
                const std::uint32_t length = read_be32(png, at);
                Chunk chunk{png.substr(at + 4, 4), png.substr(at + 8, length), read_be32(png, at + 8 + length)};
                chunks.push_back(chunk);
                at += 12 + length;
            }
            return chunks;
        }

        std::string idat_bytes(const std::string& png)
        {
            std::string joined;
            for (const Chunk& chunk : chunks_of(png))
            {
                if (chunk.type == "IDAT")
                    joined += chunk.data;
            }
            return joined;
        }

        std::string inflated(const std::string& packed, std::size_t expected_size)
        {
            std::string raw(expected_size + 16, '\0');  // spare room reveals a too long stream
            uLongf size = raw.size();
            const int status = uncompress(reinterpret_cast<Bytef*>(raw.data()), &size,
                                          reinterpret_cast<const Bytef*>(packed.data()), packed.size());
            EXPECT_EQ(status, Z_OK);
            raw.resize(size);
            return raw;
        }

        struct Image
        {
            int width = 0;
            int height = 0;
            std::string scanlines;  // filter byte, then RGB, per row
        };

        Image decode(const std::string& png)
        {
            const Chunk header = chunks_of(png).at(0);
            Image image;
            image.width = static_cast<int>(read_be32(header.data, 0));
            image.height = static_cast<int>(read_be32(header.data, 4));
            const auto expected = static_cast<std::size_t>(image.height) * (1 + 3 * static_cast<std::size_t>(image.width));
            image.scanlines = inflated(idat_bytes(png), expected);
            return image;
        }

        Rgb pixel(const Image& image, int x, int y)
        {
            const std::size_t at = static_cast<std::size_t>(y) * (1 + 3 * static_cast<std::size_t>(image.width)) + 1 +
                                   3 * static_cast<std::size_t>(x);
            const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(image.scanlines.at(i)); };
            return {byte(at), byte(at + 1), byte(at + 2)};
        }

        int count_pixels(const Image& image, Rgb colour)
        {
            int count = 0;
            for (int y = 0; y < image.height; ++y)
            {
                for (int x = 0; x < image.width; ++x)
                    count += pixel(image, x, y) == colour ? 1 : 0;
            }
            return count;
        }

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

        void expect_valid_png(const std::string& png, int width, int height)
        {
            ASSERT_GE(png.size(), 8u);
            EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
            const Image image = decode(png);
            EXPECT_EQ(image.width, width);
            EXPECT_EQ(image.height, height);
            EXPECT_EQ(image.scanlines.size(), static_cast<std::size_t>(height) * (1 + 3 * static_cast<std::size_t>(width)));
        }
    }

    // ---- base64

    TEST(Base64, EncodesRfc4648TestVectors)
    {
        EXPECT_EQ(base64_encode(""), "");
        EXPECT_EQ(base64_encode("f"), "Zg==");
        EXPECT_EQ(base64_encode("fo"), "Zm8=");
        EXPECT_EQ(base64_encode("foo"), "Zm9v");
        EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
        EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
        EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
    }

    TEST(Base64, EncodesHighAndZeroBytes)
    {
        EXPECT_EQ(base64_encode(std::string("\xff\xfe\x00", 3)), "//4A");
        EXPECT_EQ(base64_encode(std::string("\xfb\xff", 2)), "+/8=");
    }

    // ---- PNG

    TEST(ChartPng, StartsWithSignatureAndCarriesRequestedSize)
    {
        expect_valid_png(chart_to_png(speedup_bars(), 640, 360), 640, 360);
        expect_valid_png(chart_to_png(latency_lines(), 300, 200), 300, 200);
    }

    TEST(ChartPng, HeaderDeclaresEightBitRgb)
    {
        const Chunk header = chunks_of(chart_to_png(speedup_bars())).at(0);
        ASSERT_EQ(header.type, "IHDR");
        ASSERT_EQ(header.data.size(), 13u);
        EXPECT_EQ(header.data[8], 8);  // bit depth
        EXPECT_EQ(header.data[9], 2);  // truecolour
        EXPECT_EQ(header.data[12], 0);  // not interlaced
    }

    TEST(ChartPng, ChunksHaveValidCrcsAndEndWithIend)
    {
        const std::vector<Chunk> chunks = chunks_of(chart_to_png(speedup_bars()));
        ASSERT_GE(chunks.size(), 3u);
        EXPECT_EQ(chunks.back().type, "IEND");
        for (const Chunk& chunk : chunks)
        {
            const std::string body = chunk.type + chunk.data;
            const auto crc = crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
            EXPECT_EQ(chunk.crc, crc) << chunk.type;
        }
    }

    TEST(ChartPng, EveryRowUsesFilterNone)
    {
        const Image image = decode(chart_to_png(latency_lines(), 200, 120));
        for (int y = 0; y < image.height; ++y)
            EXPECT_EQ(image.scanlines.at(static_cast<std::size_t>(y) * (1 + 3 * 200)), '\0') << "row " << y;
    }

    TEST(ChartPng, DrawsSomethingBesidesWhite)
    {
        const Image image = decode(chart_to_png(speedup_bars(), 320, 200));
        EXPECT_LT(count_pixels(image, {255, 255, 255}), image.width * image.height);
        EXPECT_GT(count_pixels(image, chart_series_colour(0)), 0);
    }

    TEST(ChartPng, BiggerBarCoversMorePixelsOfItsColour)
    {
        Chart chart;
        chart.categories = {"only"};
        chart.series = {{"small", {0}, {2.0}}, {"big", {0}, {10.0}}};
        const Image image = decode(chart_to_png(chart));
        const int small = count_pixels(image, chart_series_colour(0));
        const int big = count_pixels(image, chart_series_colour(1));
        EXPECT_GT(big, small * 3);
    }

    TEST(ChartPng, LinesUseTheirSeriesColours)
    {
        const Image image = decode(chart_to_png(latency_lines()));
        EXPECT_GT(count_pixels(image, chart_series_colour(0)), 100);
        EXPECT_GT(count_pixels(image, chart_series_colour(1)), 100);
    }

    TEST(ChartPng, SameInputGivesSameBytes)
    {
        EXPECT_EQ(chart_to_png(speedup_bars()), chart_to_png(speedup_bars()));
        EXPECT_EQ(chart_to_png(latency_lines()), chart_to_png(latency_lines()));
    }

    TEST(ChartPng, PaletteColoursAreDistinct)
    {
        for (std::size_t a = 0; a < 8; ++a)
        {
            for (std::size_t b = a + 1; b < 8; ++b)
                EXPECT_FALSE(chart_series_colour(a) == chart_series_colour(b)) << a << " vs " << b;
        }
    }

    TEST(ChartPng, SurvivesDegenerateCharts)
    {
        Chart empty_bars;
        Chart empty_lines;
        empty_lines.kind = Chart::Kind::lines;

        Chart not_finite = speedup_bars();
        not_finite.series[0].y = {nan, inf, -inf, nan};
        not_finite.series[1].x = {nan, 1, 2, 99};
        not_finite.rules.push_back({"nowhere", nan});

        Chart one_category;
        one_category.categories = {"1"};
        one_category.series = {{"s", {0}, {3.0}}};

        Chart all_zero = speedup_bars();
        all_zero.rules.clear();
        for (ChartSeries& series : all_zero.series)
            series.y.assign(series.y.size(), 0.0);

        Chart one_point = latency_lines();
        one_point.series = {{"alone", {5}, {7}}};

        Chart mismatched = latency_lines();
        mismatched.series[0].x.resize(2);

        for (const Chart& chart : {empty_bars, empty_lines, not_finite, one_category, all_zero, one_point, mismatched})
            expect_valid_png(chart_to_png(chart, 320, 200), 320, 200);
    }

    TEST(ChartPng, SurvivesExtremeMagnitudes)
    {
        Chart huge = latency_lines();
        huge.series[0].y = {1e308, -1e308, 1.7e308, 0};
        huge.series[1].x = {-1e308, 0, 1e308, 1.7e308};

        Chart tiny = speedup_bars();
        tiny.series[0].y = {1e-320, 3e-310, 1e-300, 5e-324};
        tiny.rules = {{"tiny", 1e-315}};

        Chart nearly_equal = latency_lines();
        nearly_equal.series = {{"flat", {1, 2, 3}, {1.0, 1.0 + 1e-15, 1.0}}};

        Chart negative = speedup_bars();
        negative.series[1].y = {-3, -2, 0.5, -1e9};

        for (const Chart& chart : {huge, tiny, nearly_equal, negative})
            expect_valid_png(chart_to_png(chart, 400, 250), 400, 250);
    }

    TEST(ChartPng, SurvivesLongLabelsManyCategoriesAndOddText)
    {
        Chart chart = speedup_bars();
        chart.title = std::string(500, 'T');
        chart.y_title = std::string(300, 'y');
        chart.x_title = "\xc3\x97 \t\n\x01 \xe2\x80\x94 workers";  // multiplication sign, controls, em dash
        chart.rules[0].label = std::string(400, 'r');
        chart.categories.assign(200, std::string(50, 'c'));
        for (std::size_t i = 0; i < 12; ++i)
            chart.series.push_back({std::string(80, static_cast<char>('a' + i)), {0, 150, 199}, {1, 2, 3}});
        expect_valid_png(chart_to_png(chart), 640, 360);
    }

    TEST(ChartPng, ClampsSidesToAUsableRange)
    {
        expect_valid_png(chart_to_png(speedup_bars(), 1, 1), 1, 1);
        expect_valid_png(chart_to_png(speedup_bars(), 0, -5), 1, 1);
        expect_valid_png(chart_to_png(latency_lines(), 30, 20), 30, 20);
        expect_valid_png(chart_to_png(latency_lines(), 100000, 2), 4096, 2);
    }

    // ---- Vega-Lite

    TEST(ChartVegaLite, DeclaresTheV5Schema)
    {
        const nlohmann::json spec = chart_to_vegalite(speedup_bars());
        EXPECT_EQ(spec.at("$schema"), "https://vega.github.io/schema/vega-lite/v5.json");
        EXPECT_EQ(spec.at("title"), "Speed-up");
        EXPECT_GT(spec.at("width").get<int>(), 0);
        EXPECT_GT(spec.at("height").get<int>(), 0);
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

    TEST(ChartPng, SegmentsAreDrawnInTheirLaneColourWhereTheirTimeIs)
    {
        const int width = 640;
        const Image image = decode(chart_to_png(ownership_strips({"5 ms", "1 ms"}), width, 360));
        const Rgb a = chart_series_colour(0);
        const Rgb b = chart_series_colour(1);
        EXPECT_GT(count_pixels(image, a), 1000);
        EXPECT_GT(count_pixels(image, b), 1000);
        // A held the first half of the time axis, B the second: A's pixels all lie left of B's
        int rightmost_a = -1;
        int leftmost_b = width;
        for (int y = 0; y < image.height; ++y)
        {
            for (int x = 0; x < image.width; ++x)
            {
                if (pixel(image, x, y) == a) rightmost_a = std::max(rightmost_a, x);
                if (pixel(image, x, y) == b) leftmost_b = std::min(leftmost_b, x);
            }
        }
        EXPECT_LE(rightmost_a, leftmost_b);
    }

    TEST(ChartPng, SegmentChartWithNothingPlottableIsStillAnImage)
    {
        Chart chart = ownership_strips({});
        chart.segments = {{0, 5, 0.0, 1.0}};
        expect_valid_png(chart_to_png(chart, 320, 200), 320, 200);
        EXPECT_EQ(count_pixels(decode(chart_to_png(chart, 320, 200)), chart_series_colour(0)), 0);
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
