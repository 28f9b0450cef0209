// %%gilbench's pieces shared by its files: gilbench.cpp (parse, plan),
// gilbench_measure.cpp (runners/task_gilbench.py in the kernel or in a child
// interpreter, --python) and gilbench_result.cpp (the table, chart, JSON and
// result object). Both measuring places fill the same `measured` rows, which
// the result code turns into the same figures.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include "framework/cell_module.hpp"
#include "render/result.hpp"
#include "workers/child_interpreter.hpp"
#include "base/stats.hpp"
#include "gilbench_presets.hpp"

namespace gillab
{
    namespace gilbench
    {
        namespace nl = nlohmann;

        struct options
        {
            std::vector<std::string> modes;
            std::vector<std::string> worker_specs;  // as typed: "4", "default", "per-job"
            std::vector<long long> jobs;  // one table block per count
            long long repeats;
            long long warmup;
            bool weak_scaling;
            std::string start_method;
            bool startup_included;
            double budget_s;
            bool memory;
            nl::json cores;  // instruments/cores' answer, read once: the plan and the notes use it
            long long core_count() const { return cores.at("cores").get<long long>(); }
            const gilbench_preset* preset = nullptr;
            bool preset_job = false;  // the cell was empty: the preset's own job runs
            std::vector<measurement_target> targets;  // --python (the kernel alone by default)
            bool python_given = false;  // then the table names the interpreter of each row
        };

        struct configuration
        {
            std::string mode;
            long long workers;  // resolved count
            std::string workers_spec;  // what it came from
            long long jobs;  // jobs in one run
            long long base_jobs;  // the --jobs value (per worker under weak scaling)
        };

        struct peak_memory
        {
            std::optional<double> peak_rss_bytes;
            std::optional<double> largest_child_rss_bytes;
            std::string problem;  // why there is no figure
        };

        // One configuration under one interpreter: the raw runs, then their summary.
        struct measured
        {
            configuration config;
            std::vector<double> walls;  // measured runs (not the warm-up)
            std::vector<double> cpus;
            bool results_match = true;
            bool over_budget = false;  // a run was stopped
            bool skipped = false;  // not run: fewer jobs already went over budget
            peak_memory memory;
            std::vector<std::string> flags;
            summary wall;  // filled by summarize_runs
            summary cpu;
        };

        // One interpreter's rows: the kernel's, or a child's (--python).
        struct interpreter_rows
        {
            measurement_target target;
            std::string label;  // "3.13.5t (free-threaded, GIL off) (3.13t)", "3.11.2 (kernel)"
            std::vector<measured> rows;
            std::map<long long, double> sequential_walls;  // by --jobs value
            std::string start_method;  // what its pools used, as its runner says
        };

        // Runs every configuration with runners/task_gilbench.py, in this kernel
        // (its native thread pool and budget watchdog) or in a child of `target`:
        // one `measured` per configuration, runs (and with --memory its peak) filled,
        // not yet summarized, and the start method its pools used.
        // `progress` gets "which configuration, which run" as it goes.
        void measure_under(interpreter_rows& block, const cell_module& cell, const std::vector<configuration>& configs,
                           const options& o, const std::function<void(const std::string&)>& progress);

        // gilbench_result.cpp: the Result of all interpreters' rows (gillab.results.GilbenchResult reads it).
        Result build_result(const std::vector<interpreter_rows>& blocks, const options& o);
    }
}
