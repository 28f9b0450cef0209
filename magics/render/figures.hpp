// Small helpers the measuring magics share to put figures into a Result.
#pragma once

#include <cmath>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "render/number_format.hpp"
#include "render/result.hpp"

namespace gillab
{
    // JSON has no NaN: a figure that was not measured becomes null.
    inline nlohmann::json number_or_null(double value)
    {
        return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
    }

    // A figure that may not exist (a published one, an ideal): null when it does not.
    inline nlohmann::json number_or_null(const std::optional<double>& value)
    {
        return value ? number_or_null(*value) : nlohmann::json(nullptr);
    }

    // The same in a table: a blank cell.
    inline Cell number_or_blank(const std::optional<double>& value)
    {
        return value ? Cell{*value} : Cell{};
    }

    // A duration for people: "5 ms", "0.2 ms", "1,500 ms", "300 ms" for 300.101.
    inline std::string ms_text(double ms)
    {
        return format_short(ms) + " ms";
    }
}
