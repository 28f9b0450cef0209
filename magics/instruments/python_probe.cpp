#include "instruments/python_probe.hpp"

#include <stdexcept>

namespace gillab
{
    namespace
    {
        // What both probes' reports carry for every acquisition, recorded as a sample or not.
        gil_probe_summary read_totals(const nl::json& report)
        {
            gil_probe_summary totals;
            totals.acquisitions = report.at("acquisitions").get<std::size_t>();
            totals.span_s = report.at("span_s").get<double>();
            totals.total_wait_s = report.at("total_wait_s").get<double>();
            totals.total_hold_s = report.at("total_hold_s").get<double>();
            totals.max_wait_ms = report.at("max_wait_ms").get<double>();
            const nl::json& histogram = report.at("wait_histogram");
            for (std::size_t b = 0; b < wait_histogram_buckets && b < histogram.size(); ++b)
                totals.wait_histogram[b] = histogram[b].get<std::uint64_t>();
            return totals;
        }

        summary read_summary(const nl::json& j)
        {
            summary s;
            s.median = j.at("median").get<double>();
            s.min = j.at("min").get<double>();
            s.max = j.at("max").get<double>();
            s.q1 = j.at("q1").get<double>();
            s.q3 = j.at("q3").get<double>();
            s.count = j.at("count").get<std::size_t>();
            return s;
        }

        [[noreturn]] void malformed(const nl::json::exception& error)
        {
            throw std::runtime_error(std::string("a probe's report is malformed: ") + error.what());
        }
    }

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
            record.summary = summarize_samples(record.samples, read_totals(report));
        }
        catch (const nl::json::exception& error)
        {
            malformed(error);
        }
        return record;
    }

    nl::json native_probe_report(const gil_probe& probe)
    {
        const gil_probe_summary s = probe.summarize();
        nl::json histogram = nl::json::array();
        for (std::uint64_t count : s.wait_histogram) histogram.push_back(count);
        return {{"schedule", probe.how() == gil_probe::schedule::yield ? "yield" : "sleep"},
                {"every_s", probe.period_s()},
                {"span_s", s.span_s},
                {"acquisitions", s.acquisitions},
                {"total_wait_s", s.total_wait_s},
                {"total_hold_s", s.total_hold_s},
                {"max_wait_ms", s.max_wait_ms},
                {"wait_histogram", histogram},
                {"sampled", {{"recorded", s.recorded}, {"wait_ms", to_json(s.wait_ms)}, {"wait_p95_ms", s.wait_p95_ms}, {"lateness_ms", to_json(s.lateness_ms)}, {"lateness_p95_ms", s.lateness_p95_ms}}}};
    }

    gil_probe_summary read_probe_summary(const nl::json& report)
    {
        if (!report.contains("sampled")) return read_python_probe(report).summary;
        gil_probe_summary s;
        try
        {
            s = read_totals(report);
            const nl::json& sampled = report.at("sampled");
            s.recorded = sampled.at("recorded").get<std::size_t>();
            s.wait_ms = read_summary(sampled.at("wait_ms"));
            s.wait_p95_ms = sampled.at("wait_p95_ms").get<double>();
            s.lateness_ms = read_summary(sampled.at("lateness_ms"));
            s.lateness_p95_ms = sampled.at("lateness_p95_ms").get<double>();
        }
        catch (const nl::json::exception& error)
        {
            malformed(error);
        }
        return s;
    }

    std::string python_probe_caveat()
    {
        return "child interpreters measure with a Python probe thread (the native probe cannot load there): it can "
               "stamp the clock only once it holds the GIL again, so its wait includes the OS wake-up and its own "
               "stamping (resolution about a tenth of a ms, not microseconds); lateness still means how long after it "
               "wanted to run it ran.";
    }
}
