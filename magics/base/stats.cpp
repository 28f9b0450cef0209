#include "base/stats.hpp"

#include <algorithm>
#include <cmath>

namespace gillab
{
    double quantile(std::vector<double> samples, double q)
    {
        if (samples.empty())
        {
            return std::nan("");
        }
        std::sort(samples.begin(), samples.end());
        const double position = q * static_cast<double>(samples.size() - 1);
        const auto below = static_cast<std::size_t>(std::floor(position));
        const auto above = std::min(below + 1, samples.size() - 1);
        const double fraction = position - static_cast<double>(below);
        return samples[below] + (samples[above] - samples[below]) * fraction;
    }

    summary summarize(const std::vector<double>& samples)
    {
        summary s;
        s.count = samples.size();
        if (samples.empty())
        {
            s.median = s.min = s.max = s.q1 = s.q3 = std::nan("");
            return s;
        }
        s.median = quantile(samples, 0.5);
        s.q1 = quantile(samples, 0.25);
        s.q3 = quantile(samples, 0.75);
        s.min = *std::min_element(samples.begin(), samples.end());
        s.max = *std::max_element(samples.begin(), samples.end());
        return s;
    }

    nl::json to_json(const summary& s)
    {
        return {{"median", s.median}, {"min", s.min}, {"max", s.max}, {"q1", s.q1}, {"q3", s.q3}, {"iqr", s.iqr()}, {"count", s.count}};
    }
}
