// The course's published %%gilbench tables as presets: for each, the job
// (used when the cell is empty), the options that reproduce the table, the
// published figures with their source, and the physical limit of each row.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gillab
{
    struct published_row
    {
        std::string mode;
        std::string workers;  // as typed in --workers: "8", "default", "per-job"
        long long jobs;
        std::optional<double> wall_s;
        std::optional<double> speedup;
        std::optional<double> peak_rss_mb;
    };

    struct gilbench_preset
    {
        std::string name;
        std::string summary;     // one line for %%gilbench?
        std::string job_source;  // the cell when the student writes none
        std::string options;     // defaults; options the student gives win
        std::string source;      // where the published figures come from
        std::vector<published_row> published;
        // Physical limits: a job that waits wait_s can't finish sooner;
        // CPU-bound work can't go faster than one core per worker.
        std::optional<double> wait_s;
        bool cpu_bound = false;
    };

    const std::vector<gilbench_preset>& gilbench_presets();
    const gilbench_preset* find_gilbench_preset(const std::string& name);
    std::vector<std::string> gilbench_preset_names();
    std::string gilbench_presets_help();
}
