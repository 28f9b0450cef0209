// Small helpers the measuring magics share to put figures into a Result.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

namespace gillab
{
    // JSON has no NaN: a figure that was not measured becomes null.
    inline nlohmann::json number_or_null(double value)
    {
        return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
    }

    // A duration for people: "5 ms", "0.2 ms", "1500 ms".
    inline std::string ms_text(double ms)
    {
        char text[32];
        std::snprintf(text, sizeof text, "%g ms", ms);
        return text;
    }
}
