// Draws a Chart into a PNG image with a built-in rasterizer and bitmap font,
// for front ends that cannot run Vega-Lite (and for saved notebooks).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/result.hpp"

namespace gillab
{
    struct Rgb
    {
        std::uint8_t r = 0;
        std::uint8_t g = 0;
        std::uint8_t b = 0;
    };

    constexpr bool operator==(Rgb a, Rgb b)
    {
        return a.r == b.r && a.g == b.g && a.b == b.b;
    }

    // Colour of the series at this index; the palette of eight repeats.
    Rgb chart_series_colour(std::size_t series_index);

    // Bytes of an 8-bit RGB PNG file. Sides are clamped to [1, 4096] pixels.
    // Non-finite values are skipped; the same input gives the same bytes.
    std::string chart_to_png(const Chart& chart, int width = 640, int height = 360);
}
