#include "render/chart_png.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include <zlib.h>

namespace gillab
{
    namespace
    {
        // ------------------------------------------------------------------
        // Colours

        constexpr Rgb background{255, 255, 255};
        constexpr Rgb text_ink{34, 34, 34};
        constexpr Rgb muted_ink{120, 120, 120};
        constexpr Rgb axis_ink{80, 80, 80};
        constexpr Rgb grid_ink{226, 226, 226};
        constexpr Rgb rule_ink{60, 60, 60};

        constexpr std::array<Rgb, 8> palette{{
            {51, 102, 204},   // blue
            {238, 132, 30},   // orange
            {46, 160, 67},    // green
            {214, 48, 49},    // red
            {136, 84, 208},   // purple
            {140, 86, 60},    // brown
            {227, 107, 174},  // pink
            {23, 162, 184},   // teal
        }};

        // ------------------------------------------------------------------
        // Bitmap font: 5x9 glyphs for printable ASCII plus a box for anything
        // else. A glyph is nine rows of five bits, the most significant bit
        // leftmost; rows 0-6 sit on the baseline, rows 7-8 hold descenders.

        constexpr int glyph_width = 5;
        constexpr int glyph_height = 9;
        constexpr int glyph_advance = glyph_width + 1;
        constexpr int cap_height = 7;
        constexpr int line_height = 10;

        using Glyph = std::array<std::uint8_t, glyph_height>;

        constexpr std::array<Glyph, 96> font{{
            {{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},  // ' '
            {{0x04, 0x04, 0x04, 0x04, 0x04, 0x00, 0x04, 0x00, 0x00}},  // !
            {{0x0A, 0x0A, 0x0A, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},  // "
            {{0x0A, 0x0A, 0x1F, 0x0A, 0x1F, 0x0A, 0x0A, 0x00, 0x00}},  // #
            {{0x04, 0x0F, 0x14, 0x0E, 0x05, 0x1E, 0x04, 0x00, 0x00}},  // $
            {{0x18, 0x19, 0x02, 0x04, 0x08, 0x13, 0x03, 0x00, 0x00}},  // %
            {{0x0C, 0x12, 0x14, 0x08, 0x15, 0x12, 0x0D, 0x00, 0x00}},  // &
            {{0x04, 0x04, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},  // '
            {{0x02, 0x04, 0x08, 0x08, 0x08, 0x04, 0x02, 0x00, 0x00}},  // (
            {{0x08, 0x04, 0x02, 0x02, 0x02, 0x04, 0x08, 0x00, 0x00}},  // )
            {{0x00, 0x04, 0x15, 0x0E, 0x15, 0x04, 0x00, 0x00, 0x00}},  // *
            {{0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00, 0x00, 0x00}},  // +
            {{0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C, 0x04, 0x08}},  // ,
            {{0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00, 0x00, 0x00}},  // -
            {{0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C, 0x00, 0x00}},  // .
            {{0x01, 0x01, 0x02, 0x04, 0x08, 0x10, 0x10, 0x00, 0x00}},  // /
            {{0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E, 0x00, 0x00}},  // 0
            {{0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E, 0x00, 0x00}},  // 1
            {{0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F, 0x00, 0x00}},  // 2
            {{0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E, 0x00, 0x00}},  // 3
            {{0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02, 0x00, 0x00}},  // 4
            {{0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E, 0x00, 0x00}},  // 5
            {{0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E, 0x00, 0x00}},  // 6
            {{0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08, 0x00, 0x00}},  // 7
            {{0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E, 0x00, 0x00}},  // 8
            {{0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C, 0x00, 0x00}},  // 9
            {{0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00, 0x00, 0x00}},  // :
            {{0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x04, 0x08, 0x00}},  // ;
            {{0x02, 0x04, 0x08, 0x10, 0x08, 0x04, 0x02, 0x00, 0x00}},  // <
            {{0x00, 0x00, 0x1F, 0x00, 0x1F, 0x00, 0x00, 0x00, 0x00}},  // =
            {{0x08, 0x04, 0x02, 0x01, 0x02, 0x04, 0x08, 0x00, 0x00}},  // >
            {{0x0E, 0x11, 0x01, 0x02, 0x04, 0x00, 0x04, 0x00, 0x00}},  // ?
            {{0x0E, 0x11, 0x17, 0x15, 0x17, 0x10, 0x0E, 0x00, 0x00}},  // @
            {{0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11, 0x00, 0x00}},  // A
            {{0x1E, 0x11, 0x11, 0x1E, 0x11, 0x11, 0x1E, 0x00, 0x00}},  // B
            {{0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E, 0x00, 0x00}},  // C
            {{0x1C, 0x12, 0x11, 0x11, 0x11, 0x12, 0x1C, 0x00, 0x00}},  // D
            {{0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F, 0x00, 0x00}},  // E
            {{0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10, 0x00, 0x00}},  // F
            {{0x0E, 0x11, 0x10, 0x17, 0x11, 0x11, 0x0F, 0x00, 0x00}},  // G
            {{0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11, 0x00, 0x00}},  // H
            {{0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E, 0x00, 0x00}},  // I
            {{0x07, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C, 0x00, 0x00}},  // J
            {{0x11, 0x12, 0x14, 0x18, 0x14, 0x12, 0x11, 0x00, 0x00}},  // K
            {{0x10, 0x10, 0x10, 0x10, 0x10, 0x10, 0x1F, 0x00, 0x00}},  // L
            {{0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11, 0x00, 0x00}},  // M
            {{0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11, 0x00, 0x00}},  // N
            {{0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E, 0x00, 0x00}},  // O
            {{0x1E, 0x11, 0x11, 0x1E, 0x10, 0x10, 0x10, 0x00, 0x00}},  // P
            {{0x0E, 0x11, 0x11, 0x11, 0x15, 0x12, 0x0D, 0x00, 0x00}},  // Q
            {{0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11, 0x00, 0x00}},  // R
            {{0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E, 0x00, 0x00}},  // S
            {{0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x00, 0x00}},  // T
            {{0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E, 0x00, 0x00}},  // U
            {{0x11, 0x11, 0x11, 0x11, 0x11, 0x0A, 0x04, 0x00, 0x00}},  // V
            {{0x11, 0x11, 0x11, 0x15, 0x15, 0x15, 0x0A, 0x00, 0x00}},  // W
            {{0x11, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x11, 0x00, 0x00}},  // X
            {{0x11, 0x11, 0x0A, 0x04, 0x04, 0x04, 0x04, 0x00, 0x00}},  // Y
            {{0x1F, 0x01, 0x02, 0x04, 0x08, 0x10, 0x1F, 0x00, 0x00}},  // Z
            {{0x0E, 0x08, 0x08, 0x08, 0x08, 0x08, 0x0E, 0x00, 0x00}},  // [
            {{0x10, 0x10, 0x08, 0x04, 0x02, 0x01, 0x01, 0x00, 0x00}},  // backslash
            {{0x0E, 0x02, 0x02, 0x02, 0x02, 0x02, 0x0E, 0x00, 0x00}},  // ]
            {{0x04, 0x0A, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},  // ^
            {{0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1F, 0x00}},  // _
            {{0x08, 0x04, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00}},  // `
            {{0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F, 0x00, 0x00}},  // a
            {{0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x1E, 0x00, 0x00}},  // b
            {{0x00, 0x00, 0x0E, 0x10, 0x10, 0x11, 0x0E, 0x00, 0x00}},  // c
            {{0x01, 0x01, 0x0D, 0x13, 0x11, 0x11, 0x0F, 0x00, 0x00}},  // d
            {{0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E, 0x00, 0x00}},  // e
            {{0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08, 0x00, 0x00}},  // f
            {{0x00, 0x00, 0x0F, 0x11, 0x11, 0x11, 0x0F, 0x01, 0x0E}},  // g
            {{0x10, 0x10, 0x16, 0x19, 0x11, 0x11, 0x11, 0x00, 0x00}},  // h
            {{0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E, 0x00, 0x00}},  // i
            {{0x02, 0x00, 0x06, 0x02, 0x02, 0x02, 0x02, 0x12, 0x0C}},  // j
            {{0x10, 0x10, 0x12, 0x14, 0x18, 0x14, 0x12, 0x00, 0x00}},  // k
            {{0x0C, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E, 0x00, 0x00}},  // l
            {{0x00, 0x00, 0x1A, 0x15, 0x15, 0x15, 0x15, 0x00, 0x00}},  // m
            {{0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11, 0x00, 0x00}},  // n
            {{0x00, 0x00, 0x0E, 0x11, 0x11, 0x11, 0x0E, 0x00, 0x00}},  // o
            {{0x00, 0x00, 0x1E, 0x11, 0x11, 0x11, 0x1E, 0x10, 0x10}},  // p
            {{0x00, 0x00, 0x0F, 0x11, 0x11, 0x11, 0x0F, 0x01, 0x01}},  // q
            {{0x00, 0x00, 0x16, 0x19, 0x10, 0x10, 0x10, 0x00, 0x00}},  // r
            {{0x00, 0x00, 0x0F, 0x10, 0x0E, 0x01, 0x1E, 0x00, 0x00}},  // s
            {{0x08, 0x08, 0x1C, 0x08, 0x08, 0x09, 0x06, 0x00, 0x00}},  // t
            {{0x00, 0x00, 0x11, 0x11, 0x11, 0x13, 0x0D, 0x00, 0x00}},  // u
            {{0x00, 0x00, 0x11, 0x11, 0x11, 0x0A, 0x04, 0x00, 0x00}},  // v
            {{0x00, 0x00, 0x11, 0x11, 0x15, 0x15, 0x0A, 0x00, 0x00}},  // w
            {{0x00, 0x00, 0x11, 0x0A, 0x04, 0x0A, 0x11, 0x00, 0x00}},  // x
            {{0x00, 0x00, 0x11, 0x11, 0x11, 0x11, 0x0F, 0x01, 0x0E}},  // y
            {{0x00, 0x00, 0x1F, 0x02, 0x04, 0x08, 0x1F, 0x00, 0x00}},  // z
            {{0x03, 0x04, 0x04, 0x08, 0x04, 0x04, 0x03, 0x00, 0x00}},  // {
            {{0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04, 0x00}},  // |
            {{0x18, 0x04, 0x04, 0x02, 0x04, 0x04, 0x18, 0x00, 0x00}},  // }
            {{0x00, 0x00, 0x08, 0x15, 0x02, 0x00, 0x00, 0x00, 0x00}},  // ~
            {{0x1F, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1F, 0x00, 0x00}},  // box
        }};

        constexpr std::size_t box_glyph = font.size() - 1;

        using GlyphRun = std::vector<std::size_t>;  // indices into font

        bool is_utf8_continuation(unsigned char byte)
        {
            return (byte & 0xC0) == 0x80;
        }

        // One glyph per character; a multi-byte UTF-8 character shows as one box.
        GlyphRun shape(std::string_view text)
        {
            GlyphRun run;
            for (const char c : text)
            {
                const auto byte = static_cast<unsigned char>(c);
                if (is_utf8_continuation(byte))
                    continue;
                const bool printable = byte >= ' ' && byte <= '~';
                run.push_back(printable ? std::size_t{byte} - ' ' : box_glyph);
            }
            return run;
        }

        // Cuts a run to at most max_glyphs, marking the cut with ".." when
        // there is room for the marker to leave something readable.
        GlyphRun truncated(GlyphRun run, std::size_t max_glyphs)
        {
            if (run.size() <= max_glyphs)
                return run;
            const std::size_t marker = max_glyphs >= 4 ? 2 : 0;
            run.resize(max_glyphs - marker);
            run.insert(run.end(), marker, std::size_t{'.' - ' '});
            return run;
        }

        std::size_t glyphs_fitting(int pixels, int scale)
        {
            const int count = (pixels + scale) / (glyph_advance * scale);
            return static_cast<std::size_t>(std::max(count, 0));
        }

        int run_width(const GlyphRun& run, int scale)
        {
            if (run.empty())
                return 0;
            return (static_cast<int>(run.size()) * glyph_advance - 1) * scale;
        }

        bool glyph_pixel(std::size_t glyph, int column, int row)
        {
            return (font[glyph][static_cast<std::size_t>(row)] >> (glyph_width - 1 - column)) & 1;
        }

        // ------------------------------------------------------------------
        // Raster

        constexpr int largest_side = 4096;  // bounds the pixel buffer at 48 MiB

        class Canvas
        {
        public:
            Canvas(int width, int height)
                : width_(width), height_(height),
                  pixels_(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3, 255)
            {
            }

            int width() const { return width_; }
            int height() const { return height_; }
            const std::vector<std::uint8_t>& pixels() const { return pixels_; }

            void fill_rect(int left, int top, int width, int height, Rgb colour)
            {
                const int x0 = std::max(left, 0);
                const int y0 = std::max(top, 0);
                const int x1 = std::min(left + width, width_);
                const int y1 = std::min(top + height, height_);
                for (int y = y0; y < y1; ++y)
                {
                    for (int x = x0; x < x1; ++x)
                        put(x, y, colour);
                }
            }

        private:
            void put(int x, int y, Rgb colour)
            {
                const std::size_t at =
                    (static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x)) * 3;
                pixels_[at] = colour.r;
                pixels_[at + 1] = colour.g;
                pixels_[at + 2] = colour.b;
            }

            int width_;
            int height_;
            std::vector<std::uint8_t> pixels_;
        };

        void draw_run(Canvas& canvas, const GlyphRun& run, int left, int top, int scale, Rgb colour)
        {
            for (std::size_t i = 0; i < run.size(); ++i)
            {
                const int glyph_left = left + static_cast<int>(i) * glyph_advance * scale;
                for (int row = 0; row < glyph_height; ++row)
                {
                    for (int column = 0; column < glyph_width; ++column)
                    {
                        if (glyph_pixel(run[i], column, row))
                            canvas.fill_rect(glyph_left + column * scale, top + row * scale, scale, scale, colour);
                    }
                }
            }
        }

        // Text turned a quarter counter-clockwise, read from bottom to top.
        void draw_run_upwards(Canvas& canvas, const GlyphRun& run, int left, int bottom, Rgb colour)
        {
            for (std::size_t i = 0; i < run.size(); ++i)
            {
                const int glyph_bottom = bottom - static_cast<int>(i) * glyph_advance;
                for (int row = 0; row < glyph_height; ++row)
                {
                    for (int column = 0; column < glyph_width; ++column)
                    {
                        if (glyph_pixel(run[i], column, row))
                            canvas.fill_rect(left + row, glyph_bottom - column - 1, 1, 1, colour);
                    }
                }
            }
        }

        // Two pixels wide, stamped along the longer direction so no gaps appear.
        void draw_thick_line(Canvas& canvas, int x0, int y0, int x1, int y1, Rgb colour)
        {
            const int steps = std::max(std::abs(x1 - x0), std::abs(y1 - y0));
            for (int i = 0; i <= steps; ++i)
            {
                const double t = steps == 0 ? 0.0 : static_cast<double>(i) / steps;
                const int x = x0 + static_cast<int>(std::lround(t * (x1 - x0)));
                const int y = y0 + static_cast<int>(std::lround(t * (y1 - y0)));
                canvas.fill_rect(x - 1, y - 1, 2, 2, colour);
            }
        }

        void fill_disc(Canvas& canvas, int centre_x, int centre_y, int radius, Rgb colour)
        {
            for (int dy = -radius; dy <= radius; ++dy)
            {
                for (int dx = -radius; dx <= radius; ++dx)
                {
                    // radius * (radius + 1) rounds the disc better than radius squared
                    if (dx * dx + dy * dy <= radius * (radius + 1))
                        canvas.fill_rect(centre_x + dx, centre_y + dy, 1, 1, colour);
                }
            }
        }

        void draw_dashed_line(Canvas& canvas, int left, int right, int y, Rgb colour)
        {
            constexpr int dash = 6;
            constexpr int period = 10;
            for (int x = left; x < right; x += period)
                canvas.fill_rect(x, y - 1, std::min(dash, right - x), 2, colour);
        }

        // ------------------------------------------------------------------
        // Data

        struct Point
        {
            double x = 0.0;
            double y = 0.0;
        };

        using SeriesPoints = std::vector<std::vector<Point>>;

        // Within these magnitudes spans, rounded-out axis ends and tick steps
        // all stay finite, normal doubles.
        constexpr double largest_plotted = 1e307;
        constexpr double smallest_plotted = 1e-300;

        double tamed(double value)
        {
            if (std::fabs(value) < smallest_plotted)
                return 0.0;
            return std::clamp(value, -largest_plotted, largest_plotted);
        }

        bool is_bars(const Chart& chart)
        {
            return chart.kind == Chart::Kind::grouped_bars;
        }

        bool names_a_category(const Chart& chart, double index)
        {
            return index >= 0 && index < static_cast<double>(chart.categories.size());
        }

        std::vector<Point> plottable_points(const Chart& chart, const ChartSeries& series)
        {
            std::vector<Point> points;
            const std::size_t count = std::min(series.x.size(), series.y.size());
            for (std::size_t i = 0; i < count; ++i)
            {
                if (!std::isfinite(series.x[i]) || !std::isfinite(series.y[i]))
                    continue;
                const double x = is_bars(chart) ? std::round(series.x[i]) : tamed(series.x[i]);
                if (is_bars(chart) && !names_a_category(chart, x))
                    continue;
                points.push_back({x, tamed(series.y[i])});
            }
            return points;
        }

        SeriesPoints plottable_series(const Chart& chart)
        {
            SeriesPoints all;
            for (const ChartSeries& series : chart.series)
                all.push_back(plottable_points(chart, series));
            return all;
        }

        std::vector<ChartRule> plottable_rules(const Chart& chart)
        {
            std::vector<ChartRule> rules;
            for (const ChartRule& rule : chart.rules)
            {
                if (std::isfinite(rule.y))
                    rules.push_back({rule.label, tamed(rule.y)});
            }
            return rules;
        }

        bool has_points(const SeriesPoints& all)
        {
            return std::any_of(all.begin(), all.end(), [](const auto& points) { return !points.empty(); });
        }

        // ------------------------------------------------------------------
        // Axes

        struct Range
        {
            double lo = std::numeric_limits<double>::infinity();
            double hi = -std::numeric_limits<double>::infinity();

            void include(double value)
            {
                lo = std::min(lo, value);
                hi = std::max(hi, value);
            }

            bool empty() const { return lo > hi; }
        };

        // A span too thin for readable ticks is widened around its centre.
        Range widened(Range range)
        {
            const double magnitude = std::max(std::fabs(range.lo), std::fabs(range.hi));
            if (range.hi - range.lo > magnitude * 1e-6)
                return range;
            const double pad = magnitude == 0.0 ? 1.0 : magnitude * 0.1;
            const double centre = range.lo / 2 + range.hi / 2;
            return {centre - pad, centre + pad};
        }

        Range value_range(const Chart& chart, const SeriesPoints& all, const std::vector<ChartRule>& rules)
        {
            Range range;
            for (const auto& points : all)
            {
                for (const Point& point : points)
                    range.include(point.y);
            }
            for (const ChartRule& rule : rules)
                range.include(rule.y);
            if (is_bars(chart))
                range.include(0.0);  // bars grow from zero
            if (range.empty())
                return {0.0, 1.0};
            return is_bars(chart) && range.lo == range.hi ? Range{0.0, 1.0} : widened(range);
        }

        Range x_range(const SeriesPoints& all)
        {
            Range range;
            for (const auto& points : all)
            {
                for (const Point& point : points)
                    range.include(point.x);
            }
            return range.empty() ? Range{0.0, 1.0} : widened(range);
        }

        struct Axis
        {
            double lo = 0.0;
            double hi = 1.0;
            double step = 0.2;
            int step_exponent = -1;  // step is 1, 2 or 5 times ten to this power
        };

        // Rounds the range outwards to multiples of a 1/2/5 x 10^k step giving
        // about target_ticks intervals.
        Axis nice_axis(Range range, int target_ticks)
        {
            Axis axis;
            const double raw_step = (range.hi - range.lo) / target_ticks;
            axis.step_exponent = static_cast<int>(std::floor(std::log10(raw_step)));
            const double fraction = raw_step / std::pow(10.0, axis.step_exponent);
            double multiplier = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
            if (multiplier == 10)
            {
                multiplier = 1;
                axis.step_exponent += 1;
            }
            axis.step = multiplier * std::pow(10.0, axis.step_exponent);
            // the slack keeps a bound that is already a multiple from gaining a step
            axis.lo = std::floor(range.lo / axis.step + 1e-9) * axis.step;
            axis.hi = std::ceil(range.hi / axis.step - 1e-9) * axis.step;
            return axis;
        }

        int tick_target(int axis_pixels, int pixels_per_tick)
        {
            return std::clamp(axis_pixels / pixels_per_tick, 2, 10);
        }

        std::vector<double> tick_values(const Axis& axis)
        {
            constexpr long most_ticks = 40;
            const long intervals = std::clamp(std::lround((axis.hi - axis.lo) / axis.step), 1L, most_ticks);
            std::vector<double> ticks;
            for (long i = 0; i <= intervals; ++i)
                ticks.push_back(axis.lo + static_cast<double>(i) * axis.step);
            return ticks;
        }

        std::string fixed_decimals(double value, int decimals)
        {
            std::array<char, 64> buffer{};
            const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                              std::chars_format::fixed, decimals);
            return std::string(buffer.data(), result.ptr);
        }

        // Mantissa with as many decimals as the step needs, then "e" and the
        // power of ten: 2.5e-9, 1e12.
        std::string scientific(double value, int step_exponent)
        {
            int exponent = static_cast<int>(std::floor(std::log10(std::fabs(value))));
            double mantissa = value / std::pow(10.0, exponent);
            if (std::fabs(mantissa) >= 9.9999995)  // log10 rounded down a power of ten
            {
                exponent += 1;
                mantissa /= 10;
            }
            const int decimals = std::clamp(exponent - step_exponent, 0, 6);
            return fixed_decimals(mantissa, decimals) + "e" + std::to_string(exponent);
        }

        std::string tick_label(double value, const Axis& axis)
        {
            const bool zero = std::fabs(value) < axis.step * 1e-6;  // lo + i * step may miss zero slightly
            const double magnitude = std::max(std::fabs(axis.lo), std::fabs(axis.hi));
            if (axis.step_exponent >= -3 && magnitude < 1e7)
                return fixed_decimals(zero ? 0.0 : value, std::max(0, -axis.step_exponent));
            return zero ? "0" : scientific(value, axis.step_exponent);
        }

        int widest_tick_label(const Axis& axis)
        {
            int widest = 0;
            for (const double tick : tick_values(axis))
                widest = std::max(widest, run_width(shape(tick_label(tick, axis)), 1));
            return widest;
        }

        // ------------------------------------------------------------------
        // Layout

        constexpr int margin = 10;
        constexpr int gap = 6;
        constexpr int title_scale = 2;
        constexpr int tick_length = 4;
        constexpr int swatch_size = 9;
        constexpr int legend_row_height = 14;
        constexpr int legend_spacing = 16;
        constexpr std::size_t longest_legend_name = 28;
        constexpr int marker_radius = 3;
        constexpr int rule_label_room = cap_height + 4;

        struct Rect
        {
            int left = 0;
            int top = 0;
            int width = 1;
            int height = 1;

            int right() const { return left + width; }
            int bottom() const { return top + height; }
        };

        struct LegendEntry
        {
            int left = 0;
            int top = 0;
            GlyphRun name;
            Rgb colour;
        };

        struct Frame
        {
            Rect plot;
            Axis y_axis;
            Axis x_axis;  // lines only; bars place categories evenly
            int title_top = 0;
            int x_labels_top = 0;
            int x_title_top = 0;
            int y_title_left = 0;
            std::vector<LegendEntry> legend;
        };

        int to_pixel(double offset)
        {
            return static_cast<int>(std::lround(std::clamp(offset, -1e6, 1e6)));
        }

        int y_pixel(const Frame& frame, double value)
        {
            const double fraction = (frame.y_axis.hi - value) / (frame.y_axis.hi - frame.y_axis.lo);
            return frame.plot.top + to_pixel(fraction * frame.plot.height);
        }

        int x_pixel(const Frame& frame, double value)
        {
            const double fraction = (value - frame.x_axis.lo) / (frame.x_axis.hi - frame.x_axis.lo);
            return frame.plot.left + to_pixel(fraction * frame.plot.width);
        }

        std::vector<LegendEntry> lay_out_legend(const Chart& chart, int left, int right, int top)
        {
            const int name_room = right - left - swatch_size - 4;
            const std::size_t longest_name = std::min(longest_legend_name, glyphs_fitting(name_room, 1));
            std::vector<LegendEntry> entries;
            int x = left;
            int y = top;
            for (std::size_t i = 0; i < chart.series.size(); ++i)
            {
                GlyphRun name = truncated(shape(chart.series[i].name), longest_name);
                const int entry_width = swatch_size + 4 + run_width(name, 1);
                if (x > left && x + entry_width > right)
                {
                    x = left;
                    y += legend_row_height;
                }
                entries.push_back({x, y, std::move(name), chart_series_colour(i)});
                x += entry_width + legend_spacing;
            }
            return entries;
        }

        // A rule at the top edge would have no room for its label inside the plot.
        void make_room_for_rule_labels(Frame& frame, const std::vector<ChartRule>& rules)
        {
            const bool crowded = std::any_of(rules.begin(), rules.end(), [&](const ChartRule& rule) {
                return y_pixel(frame, rule.y) - frame.plot.top < rule_label_room + 2;
            });
            if (crowded)
                frame.y_axis.hi += frame.y_axis.step;
        }

        // The title (and, when asked, the legend) from the top, the x axis's labels and title from
        // the bottom; returns the plot's top and bottom edges.
        std::pair<int, int> stack_edges(const Canvas& canvas, const Chart& chart, Frame& frame, bool with_legend)
        {
            int top = margin;
            frame.title_top = top;
            if (!chart.title.empty())
                top += line_height * title_scale + gap;
            if (with_legend)
            {
                frame.legend = lay_out_legend(chart, margin, canvas.width() - margin, top);
                if (!frame.legend.empty())
                    top = frame.legend.back().top + legend_row_height + gap;
            }
            int bottom = canvas.height() - margin;
            if (!chart.x_title.empty())
            {
                frame.x_title_top = bottom - line_height;
                bottom = frame.x_title_top - gap / 2;
            }
            frame.x_labels_top = bottom - line_height;
            bottom = frame.x_labels_top - tick_length - 2;
            return {top, bottom};
        }

        // The plot takes what the title, legend and axis labels leave.
        Frame lay_out(const Canvas& canvas, const Chart& chart, const SeriesPoints& all,
                      const std::vector<ChartRule>& rules)
        {
            Frame frame;
            const auto [top, bottom] = stack_edges(canvas, chart, frame, true);
            frame.plot.top = top;
            frame.plot.height = std::max(1, bottom - top);
            frame.y_axis = nice_axis(value_range(chart, all, rules), tick_target(frame.plot.height, 50));
            make_room_for_rule_labels(frame, rules);

            int left = margin;
            frame.y_title_left = left;
            if (!chart.y_title.empty())
                left += line_height + gap;
            frame.plot.left = left + widest_tick_label(frame.y_axis) + tick_length + 3;
            // lines leave room for half of the last x tick label
            const int right = canvas.width() - margin - (is_bars(chart) ? 0 : 3 * glyph_advance);
            frame.plot.width = std::max(1, right - frame.plot.left);
            frame.x_axis = nice_axis(x_range(all), tick_target(frame.plot.width, 90));
            return frame;
        }

        double group_width(const Chart& chart, const Frame& frame)
        {
            return static_cast<double>(frame.plot.width) / static_cast<double>(chart.categories.size());
        }

        // ------------------------------------------------------------------
        // Drawing

        void draw_centred(Canvas& canvas, const GlyphRun& run, int centre_x, int top, int scale, Rgb colour)
        {
            draw_run(canvas, run, centre_x - run_width(run, scale) / 2, top, scale, colour);
        }

        void draw_title(Canvas& canvas, const Chart& chart, const Frame& frame)
        {
            const std::size_t room = glyphs_fitting(canvas.width() - 2 * margin, title_scale);
            const GlyphRun title = truncated(shape(chart.title), room);
            draw_centred(canvas, title, canvas.width() / 2, frame.title_top, title_scale, text_ink);
        }

        void draw_legend(Canvas& canvas, const Frame& frame)
        {
            for (const LegendEntry& entry : frame.legend)
            {
                canvas.fill_rect(entry.left, entry.top, swatch_size, swatch_size, entry.colour);
                draw_run(canvas, entry.name, entry.left + swatch_size + 4, entry.top + 1, 1, text_ink);
            }
        }

        void draw_y_axis(Canvas& canvas, const Frame& frame)
        {
            const Rect& plot = frame.plot;
            for (const double tick : tick_values(frame.y_axis))
            {
                const int y = y_pixel(frame, tick);
                canvas.fill_rect(plot.left + 1, y, plot.width, 1, grid_ink);
                canvas.fill_rect(plot.left - tick_length, y, tick_length, 1, axis_ink);
                const GlyphRun label = shape(tick_label(tick, frame.y_axis));
                const int label_left = plot.left - tick_length - 3 - run_width(label, 1);
                draw_run(canvas, label, label_left, y - cap_height / 2, 1, text_ink);
            }
        }

        void draw_x_ticks(Canvas& canvas, const Frame& frame)
        {
            const Rect& plot = frame.plot;
            for (const double tick : tick_values(frame.x_axis))
            {
                const int x = x_pixel(frame, tick);
                canvas.fill_rect(x, plot.top, 1, plot.height, grid_ink);
                canvas.fill_rect(x, plot.bottom(), 1, tick_length, axis_ink);
                draw_centred(canvas, shape(tick_label(tick, frame.x_axis)), x, frame.x_labels_top, 1, text_ink);
            }
        }

        // Labels are shortened to their group; when groups are too narrow even
        // for that, only every n-th category is labelled.
        void draw_category_labels(Canvas& canvas, const Chart& chart, const Frame& frame)
        {
            constexpr std::size_t shortest = 3;
            constexpr std::size_t longest = 20;
            const double width = group_width(chart, frame);
            const std::size_t room = std::clamp(glyphs_fitting(static_cast<int>(width) - 4, 1), shortest, longest);
            std::vector<GlyphRun> labels;
            int widest = 0;
            for (const std::string& category : chart.categories)
            {
                labels.push_back(truncated(shape(category), room));
                widest = std::max(widest, run_width(labels.back(), 1));
            }
            const auto stride = static_cast<std::size_t>(std::max(1.0, std::ceil((widest + gap) / width)));
            for (std::size_t i = 0; i < labels.size(); i += stride)
            {
                const int centre = frame.plot.left + to_pixel((static_cast<double>(i) + 0.5) * width);
                draw_centred(canvas, labels[i], centre, frame.x_labels_top, 1, text_ink);
            }
        }

        void draw_axis_lines(Canvas& canvas, const Chart& chart, const Frame& frame)
        {
            const Rect& plot = frame.plot;
            canvas.fill_rect(plot.left, plot.top, 1, plot.height + 1, axis_ink);
            canvas.fill_rect(plot.left, plot.bottom(), plot.width + 1, 1, axis_ink);
            if (is_bars(chart) && frame.y_axis.lo < 0 && frame.y_axis.hi > 0)
                canvas.fill_rect(plot.left, y_pixel(frame, 0.0), plot.width + 1, 1, axis_ink);
        }

        void draw_axis_titles(Canvas& canvas, const Chart& chart, const Frame& frame)
        {
            const Rect& plot = frame.plot;
            const int plot_centre_x = plot.left + plot.width / 2;
            const GlyphRun x_title = truncated(shape(chart.x_title), glyphs_fitting(plot.width, 1));
            draw_centred(canvas, x_title, plot_centre_x, frame.x_title_top, 1, text_ink);

            const GlyphRun y_title = truncated(shape(chart.y_title), glyphs_fitting(plot.height, 1));
            const int bottom = plot.top + plot.height / 2 + run_width(y_title, 1) / 2;
            draw_run_upwards(canvas, y_title, frame.y_title_left, bottom, text_ink);
        }

        void draw_bars(Canvas& canvas, const Chart& chart, const Frame& frame, const SeriesPoints& all)
        {
            if (all.empty())
                return;
            const double group = group_width(chart, frame);
            const double slot = group * 0.8 / static_cast<double>(all.size());
            const int baseline = y_pixel(frame, std::clamp(0.0, frame.y_axis.lo, frame.y_axis.hi));
            for (std::size_t s = 0; s < all.size(); ++s)
            {
                for (const Point& point : all[s])
                {
                    const double left = point.x * group + group * 0.1 + static_cast<double>(s) * slot;
                    const int x0 = frame.plot.left + to_pixel(left);
                    int x1 = frame.plot.left + to_pixel(left + slot);
                    if (x1 - x0 >= 4)
                        x1 -= 1;  // a hairline of background between neighbouring bars
                    const int top = y_pixel(frame, point.y);
                    canvas.fill_rect(x0, std::min(top, baseline), std::max(1, x1 - x0),
                                     std::abs(top - baseline), chart_series_colour(s));
                }
            }
        }

        void draw_lines(Canvas& canvas, const Frame& frame, const SeriesPoints& all)
        {
            for (std::size_t s = 0; s < all.size(); ++s)
            {
                const Rgb colour = chart_series_colour(s);
                const std::vector<Point>& points = all[s];
                for (std::size_t i = 1; i < points.size(); ++i)
                {
                    draw_thick_line(canvas, x_pixel(frame, points[i - 1].x), y_pixel(frame, points[i - 1].y),
                                    x_pixel(frame, points[i].x), y_pixel(frame, points[i].y), colour);
                }
                for (const Point& point : points)
                    fill_disc(canvas, x_pixel(frame, point.x), y_pixel(frame, point.y), marker_radius, colour);
            }
        }

        // The label sits above the line, right-aligned, on a background patch
        // so bars under it do not garble it.
        void draw_rule(Canvas& canvas, const Frame& frame, const ChartRule& rule)
        {
            const Rect& plot = frame.plot;
            const int y = y_pixel(frame, rule.y);
            draw_dashed_line(canvas, plot.left + 1, plot.right(), y, rule_ink);

            const GlyphRun label = truncated(shape(rule.label), glyphs_fitting(plot.width / 2, 1));
            const int width = run_width(label, 1);
            const int left = plot.right() - 4 - width;
            const int top = y - rule_label_room;
            canvas.fill_rect(left - 2, top - 2, width + 4, line_height + 1, background);
            draw_run(canvas, label, left, top, 1, rule_ink);
        }

        void draw_no_data(Canvas& canvas, const Frame& frame)
        {
            const Rect& plot = frame.plot;
            const int centre_x = plot.left + plot.width / 2;
            const int top = plot.top + plot.height / 2 - cap_height / 2;
            draw_centred(canvas, shape("no data"), centre_x, top, 1, muted_ink);
        }

        void draw_chart(Canvas& canvas, const Chart& chart)
        {
            const SeriesPoints all = plottable_series(chart);
            const std::vector<ChartRule> rules = plottable_rules(chart);
            const Frame frame = lay_out(canvas, chart, all, rules);

            draw_y_axis(canvas, frame);
            if (!is_bars(chart))
            {
                draw_x_ticks(canvas, frame);
                draw_lines(canvas, frame, all);
            }
            else if (!chart.categories.empty())  // group widths divide by the category count
            {
                draw_bars(canvas, chart, frame, all);
                draw_category_labels(canvas, chart, frame);
            }
            draw_axis_lines(canvas, chart, frame);
            for (const ChartRule& rule : rules)
                draw_rule(canvas, frame, rule);
            if (!has_points(all))
                draw_no_data(canvas, frame);
            draw_title(canvas, chart, frame);
            draw_legend(canvas, frame);
            draw_axis_titles(canvas, chart, frame);
        }

        // ------------------------------------------------------------------
        // Segments: a strip per band (its name above it), a row per lane
        // (named on the left), a bar per segment along a shared time axis.

        constexpr int tallest_lane = 24;


        Range segment_range(const Chart& chart)
        {
            Range range;
            for (const ChartSegment& segment : chart.segments)
            {
                if (!chart.plottable(segment))
                    continue;
                range.include(tamed(segment.start));
                range.include(tamed(segment.end));
            }
            return range.empty() ? Range{0.0, 1.0} : widened(range);
        }

        void draw_segments_chart(Canvas& canvas, const Chart& chart)
        {
            Frame frame;
            const auto [top, bottom] = stack_edges(canvas, chart, frame, false);

            std::vector<GlyphRun> lane_labels;
            int label_width = 0;
            for (const std::string& lane : chart.lanes)
            {
                lane_labels.push_back(truncated(shape(lane), longest_legend_name));
                label_width = std::max(label_width, run_width(lane_labels.back(), 1));
            }
            frame.plot.top = top;
            frame.plot.height = std::max(1, bottom - top);
            frame.plot.left = margin + label_width + gap;
            frame.plot.width = std::max(1, canvas.width() - margin - 3 * glyph_advance - frame.plot.left);
            frame.x_axis = nice_axis(segment_range(chart), tick_target(frame.plot.width, 90));

            const int band_count = static_cast<int>(std::max<std::size_t>(chart.bands.size(), 1));
            const int lane_count = static_cast<int>(chart.lanes.size());
            const int header = chart.bands.empty() ? 0 : line_height + 4;
            const int free = frame.plot.height - band_count * header;
            const int lane_height = std::clamp(lane_count ? free / (band_count * lane_count) : 1, 1, tallest_lane);
            auto band_top = [&](int band) { return frame.plot.top + band * (header + lane_count * lane_height); };
            auto lane_top = [&](int band, int lane) { return band_top(band) + header + lane * lane_height; };

            draw_x_ticks(canvas, frame);
            for (int band = 0; band < band_count; ++band)
            {
                if (!chart.bands.empty())
                {
                    const GlyphRun name = truncated(shape(chart.bands[static_cast<std::size_t>(band)]),
                                                    glyphs_fitting(canvas.width() - 2 * margin, 1));
                    canvas.fill_rect(frame.plot.left + 1, band_top(band) + 1, frame.plot.width, line_height + 2, background);
                    draw_run(canvas, name, margin, band_top(band) + 2, 1, text_ink);
                }
                for (int lane = 0; lane < lane_count; ++lane)
                {
                    const int label_top = lane_top(band, lane) + (lane_height - cap_height) / 2;
                    draw_run(canvas, lane_labels[static_cast<std::size_t>(lane)], margin, label_top, 1, text_ink);
                }
            }
            const int padding = lane_height >= 6 ? 2 : 0;
            for (const ChartSegment& segment : chart.segments)
            {
                if (!chart.plottable(segment))
                    continue;
                const int x0 = x_pixel(frame, tamed(segment.start));
                const int x1 = std::max(x0 + 1, x_pixel(frame, tamed(segment.end)));  // every segment stays visible
                const int y = lane_top(static_cast<int>(segment.band), static_cast<int>(segment.lane));
                canvas.fill_rect(x0, y + padding, x1 - x0, lane_height - 2 * padding, chart_series_colour(segment.lane));
            }
            draw_axis_lines(canvas, chart, frame);
            if (std::none_of(chart.segments.begin(), chart.segments.end(),
                             [&](const ChartSegment& segment) { return chart.plottable(segment); }))
                draw_no_data(canvas, frame);
            draw_title(canvas, chart, frame);
            draw_axis_titles(canvas, chart, frame);
        }

        // ------------------------------------------------------------------
        // PNG encoding

        void append_be32(std::string& out, std::uint32_t value)
        {
            for (int shift = 24; shift >= 0; shift -= 8)
                out.push_back(static_cast<char>((value >> shift) & 0xFF));
        }

        void append_chunk(std::string& png, std::string_view type, const std::string& data)
        {
            append_be32(png, static_cast<std::uint32_t>(data.size()));
            const std::string body = std::string(type) + data;
            png += body;
            const auto* bytes = reinterpret_cast<const Bytef*>(body.data());
            append_be32(png, static_cast<std::uint32_t>(crc32(0L, bytes, static_cast<uInt>(body.size()))));
        }

        std::string header_data(const Canvas& canvas)
        {
            std::string data;
            append_be32(data, static_cast<std::uint32_t>(canvas.width()));
            append_be32(data, static_cast<std::uint32_t>(canvas.height()));
            constexpr char bit_depth = 8;
            constexpr char truecolour = 2;
            data += {bit_depth, truecolour, 0 /* deflate */, 0 /* adaptive filters */, 0 /* no interlace */};
            return data;
        }

        // Each row is preceded by its filter type; 0 stores the bytes as they are.
        std::string scanlines(const Canvas& canvas)
        {
            const auto row_bytes = static_cast<std::size_t>(canvas.width()) * 3;
            const auto& pixels = canvas.pixels();
            std::string rows;
            rows.reserve((row_bytes + 1) * static_cast<std::size_t>(canvas.height()));
            for (std::size_t at = 0; at < pixels.size(); at += row_bytes)
            {
                rows.push_back('\0');
                rows.append(reinterpret_cast<const char*>(pixels.data() + at), row_bytes);
            }
            return rows;
        }

        std::string deflated(const std::string& raw)
        {
            uLongf size = compressBound(static_cast<uLong>(raw.size()));
            std::string packed(size, '\0');
            const int status = compress2(reinterpret_cast<Bytef*>(packed.data()), &size,
                                         reinterpret_cast<const Bytef*>(raw.data()),
                                         static_cast<uLong>(raw.size()), Z_BEST_COMPRESSION);
            if (status != Z_OK)
                throw std::runtime_error("chart_to_png: zlib compress2 failed with status " + std::to_string(status));
            packed.resize(size);
            return packed;
        }

        std::string encode_png(const Canvas& canvas)
        {
            std::string png = "\x89PNG\r\n\x1a\n";
            append_chunk(png, "IHDR", header_data(canvas));
            append_chunk(png, "IDAT", deflated(scanlines(canvas)));
            append_chunk(png, "IEND", {});
            return png;
        }
    }

    Rgb chart_series_colour(std::size_t series_index)
    {
        return palette[series_index % palette.size()];
    }

    std::string chart_to_png(const Chart& chart, int width, int height)
    {
        Canvas canvas(std::clamp(width, 1, largest_side), std::clamp(height, 1, largest_side));
        if (chart.kind == Chart::Kind::segments)
            draw_segments_chart(canvas, chart);
        else
            draw_chart(canvas, chart);
        return encode_png(canvas);
    }
}
