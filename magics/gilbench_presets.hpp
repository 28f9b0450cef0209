// The course's published %%gilbench tables as presets. Each preset lives in
// gillab/preset_jobs/ alone (presets.json: summary, options, physical limit;
// job_NAME.py: its job), read once with its published figures and their source
// (gillab/course/published.json). Here: the lookups.
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

    struct preset_figures
    {
        std::string source;  // where the published figures come from
        std::vector<published_row> rows;
    };

    struct gilbench_preset
    {
        std::string name;
        std::string summary;  // one line for %%gilbench?
        std::string options;  // defaults; options the student gives win
        // Physical limits: a job that waits wait_s can't finish sooner;
        // CPU-bound work can't go faster than one core per worker.
        std::optional<double> wait_s;
        bool cpu_bound = false;
        std::string job;  // the cell run when the student writes none
        preset_figures published;  // the course's figures for its own job (none: empty)
    };

    const std::vector<gilbench_preset>& gilbench_presets();
    // The cell when the student writes none (read with the presets).
    std::string preset_job_source(const gilbench_preset& preset);
    const gilbench_preset* find_gilbench_preset(const std::string& name);
    std::vector<std::string> gilbench_preset_names();
    // The presets as %gilbench? lists them (gillab.preset_jobs.listing; GIL held).
    std::string gilbench_presets_help();
}
