// A GIL probe's report, as a runner hands it back: the Python-thread probe
// that child interpreters run (runners/lateness_probe.py, where the native
// gil_probe cannot load) sends its samples, the native one its figures
// summarised already; both are read back into the native probe's summary, so
// they are rendered by the same code.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "instruments/gil_probe.hpp"

namespace gillab
{
    namespace nl = nlohmann;

    struct python_probe_record
    {
        double every_s = 0;
        std::size_t stride = 1;  // every stride-th acquisition kept as a sample
        std::vector<gil_sample> samples;
        gil_probe_summary summary;
    };

    // Throws std::runtime_error when the report is not one the probe writes.
    python_probe_record read_python_probe(const nl::json& report);

    // The native probe's report: the Python probe's totals, with its sample
    // statistics ("sampled") in place of the samples themselves.
    nl::json native_probe_report(const gil_probe& probe);

    // Either probe's report, summarised. Throws std::runtime_error as above.
    gil_probe_summary read_probe_summary(const nl::json& report);

    // Where its figures differ from the native probe's, for a table note.
    std::string python_probe_caveat();
}
