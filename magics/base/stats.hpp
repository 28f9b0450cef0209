// Summary statistics of repeated timings.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

namespace gillab
{
    namespace nl = nlohmann;

    struct summary
    {
        double median = 0;
        double min = 0;
        double max = 0;
        double q1 = 0;
        double q3 = 0;
        double iqr() const { return q3 - q1; }
        std::size_t count = 0;
    };

    // Linear-interpolated quantile of unsorted samples; q in [0, 1].
    double quantile(std::vector<double> samples, double q);

    summary summarize(const std::vector<double>& samples);

    nl::json to_json(const summary& s);
}
