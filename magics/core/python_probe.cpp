#include "python_probe.hpp"

#include <stdexcept>

namespace gillab
{
    python_probe_record read_python_probe(const nl::json& report)
    {
        python_probe_record record;
        try
        {
            record.every_s = report.at("every_s").get<double>();
            record.stride = report.at("stride").get<std::size_t>();
            for (const nl::json& s : report.at("samples"))
            {
                record.samples.push_back({s.at(0).get<std::int64_t>(), s.at(1).get<std::int64_t>(),
                                          s.at(2).get<std::int64_t>(), s.at(3).get<std::int64_t>()});
            }
            gil_probe_summary totals;
            totals.acquisitions = report.at("acquisitions").get<std::size_t>();
            totals.span_s = report.at("span_s").get<double>();
            totals.total_wait_s = report.at("total_wait_s").get<double>();
            totals.total_hold_s = report.at("total_hold_s").get<double>();
            totals.max_wait_ms = report.at("max_wait_ms").get<double>();
            const nl::json& histogram = report.at("wait_histogram");
            for (std::size_t b = 0; b < wait_histogram_buckets && b < histogram.size(); ++b)
                totals.wait_histogram[b] = histogram[b].get<std::uint64_t>();
            record.summary = summarize_samples(record.samples, totals);
        }
        catch (const nl::json::exception& error)
        {
            throw std::runtime_error(std::string("a child's probe report is malformed: ") + error.what());
        }
        return record;
    }

    std::string python_probe_caveat()
    {
        return "child interpreters measure with a Python probe thread (the native probe cannot load there): it can "
               "stamp the clock only once it holds the GIL again, so its wait includes the OS wake-up and its own "
               "stamping (resolution about a tenth of a ms, not microseconds); lateness still means how long after it "
               "wanted to run it ran.";
    }
}
