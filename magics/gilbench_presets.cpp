#include "gilbench_presets.hpp"

#include <pybind11/pybind11.h>

#include "render/published.hpp"

namespace gillab
{
    namespace
    {
        std::vector<gilbench_preset> make_presets()
        {
            return {
                {"cpu", "8 equal pure-Python jobs at 1/2/4/8 workers: sequential vs threads vs processes (about a minute)",
                 "--modes sequential,threads,processes --workers 1,2,4,8 --jobs 8 --repeats 3 --warmup 0 "
                 "--start-method spawn --startup included",
                 {}, true},
                {"io", "100 / 1,000 / 10,000 waits of 100 ms: default thread pool vs one thread per job vs asyncio, "
                       "with peak RSS in a fresh process (about a minute)",
                 "--modes threads,asyncio --workers default,per-job --jobs 100,1000,10000 --repeats 3 --warmup 0 "
                 "--budget 15s --memory",
                 0.1, false},
                {"sleep", "8 sleeps of 50 ms at 1/2/4/8 threads: waiting releases the GIL",
                 "--modes sequential,threads --workers 1,2,4,8 --jobs 8 --repeats 5 --warmup 1",
                 0.05, false},
                {"zlib", "zlib compressing one ~6 MB buffer per thread (weak scaling): zlib releases the GIL",
                 "--modes sequential,threads --workers 1,2 --jobs 1 --scaling weak --repeats 5 --warmup 1",
                 {}, true},
                {"hashlib-small", "sha256 of 16 MiB in 1 KiB updates at 1/2 threads: below hashlib's 2048-byte "
                                  "threshold the GIL stays held",
                 "--modes sequential,threads --workers 1,2 --jobs 1 --scaling weak --repeats 5 --warmup 1",
                 {}, true},
                {"hashlib-large", "the same with 64 KiB updates: above the threshold hashlib releases the GIL",
                 "--modes sequential,threads --workers 1,2 --jobs 1 --scaling weak --repeats 5 --warmup 1",
                 {}, true},
                {"startup", "process pool start-up alone: 8 spawn workers and a no-op",
                 "--modes processes --workers 8 --jobs 8 --repeats 5 --warmup 1 --start-method spawn --startup included",
                 {}, false},
            };
        }
    }

    const std::vector<gilbench_preset>& gilbench_presets()
    {
        static const std::vector<gilbench_preset> presets = make_presets();
        return presets;
    }

    preset_figures published_figures(const gilbench_preset& preset)
    {
        const nlohmann::json all = published_for_magic("gilbench");
        preset_figures figures;
        if (!all.contains(preset.name)) return figures;
        const nlohmann::json& found = all[preset.name];
        figures.source = found.value("source", "");
        const auto number = [](const nlohmann::json& v) { return v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt; };
        for (const nlohmann::json& row : found["rows"])
        {
            figures.rows.push_back({row["mode"], row["workers"], row["jobs"], number(row["wall_s"]), number(row["speedup"]),
                                    number(row["peak_rss_mb"])});
        }
        return figures;
    }

    std::string preset_job_source(const gilbench_preset& preset)
    {
        return pybind11::module_::import("gillab.preset_jobs").attr("source")(preset.name).cast<std::string>();
    }

    const gilbench_preset* find_gilbench_preset(const std::string& name)
    {
        for (const gilbench_preset& preset : gilbench_presets())
        {
            if (preset.name == name) return &preset;
        }
        return nullptr;
    }

    std::vector<std::string> gilbench_preset_names()
    {
        std::vector<std::string> names;
        for (const gilbench_preset& preset : gilbench_presets()) names.push_back(preset.name);
        return names;
    }

    std::string gilbench_presets_help()
    {
        std::string out = "Presets: the course's published tables, one call each. The line form `%gilbench --preset NAME`\n"
                          "runs the preset's own job; `%%gilbench --preset NAME` with a cell times your job instead.\n"
                          "The table gains the published figures and the fastest time physics allows. Options you add\n"
                          "win over the preset's, e.g. `--repeats 5`.\n";
        for (const gilbench_preset& preset : gilbench_presets())
        {
            out += "  %gilbench --preset " + preset.name + "\n      " + preset.summary + "\n      = " +
                   preset.options + "\n";
        }
        return out;
    }
}
