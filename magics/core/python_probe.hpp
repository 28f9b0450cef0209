// The kernel side of the Python-thread probe that child interpreters run
// (runners/lateness_probe.py) where the native gil_probe cannot load: its
// report, read back into the native probe's samples and summary, so both are
// summarised and rendered by the same code.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gil_probe.hpp"

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

    // Where its figures differ from the native probe's, for a table note.
    std::string python_probe_caveat();
}
