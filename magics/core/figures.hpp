// Small helpers the measuring magics share to put figures into a Result.
#pragma once

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "number_format.hpp"

namespace gillab
{
    // JSON has no NaN: a figure that was not measured becomes null.
    inline nlohmann::json number_or_null(double value)
    {
        return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
    }

    // A duration for people: "5 ms", "0.2 ms", "1,500 ms", "300 ms" for 300.101.
    inline std::string ms_text(double ms)
    {
        return format_short(ms) + " ms";
    }
}
