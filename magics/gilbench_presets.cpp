#include "gilbench_presets.hpp"

#include "framework/python_side.hpp"

namespace gillab
{
    namespace
    {
        std::optional<double> number(const nlohmann::json& v)
        {
            return v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt;
        }

        preset_figures figures_from(const nlohmann::json& published, const std::string& name)
        {
            preset_figures figures;
            if (!published.contains(name)) return figures;
            const nlohmann::json& found = published[name];
            figures.source = found.value("source", "");
            for (const nlohmann::json& row : found["rows"])
                figures.rows.push_back({row["mode"], row["workers"], row["jobs"], number(row["wall_s"]),
                                        number(row["speedup"]), number(row["peak_rss_mb"])});
            return figures;
        }

        // Read once from gillab/preset_jobs (presets.json and the job files), the presets' one
        // home, with their published figures: nothing is asked of Python after a run.
        std::vector<gilbench_preset> read_presets()
        {
            const nlohmann::json published = python_side::published_for_magic("gilbench");
            std::vector<gilbench_preset> presets;
            for (const nlohmann::json& p : python_side::preset_definitions())
            {
                presets.push_back({p.at("name"), p.at("summary"), p.at("options"), number(p.at("wait_s")),
                                   p.at("cpu_bound").get<bool>(), p.at("job"), figures_from(published, p.at("name"))});
            }
            return presets;
        }
    }

    const std::vector<gilbench_preset>& gilbench_presets()
    {
        static const std::vector<gilbench_preset> presets = read_presets();
        return presets;
    }

    std::string preset_job_source(const gilbench_preset& preset)
    {
        return preset.job;
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
        static const std::string listing = python_side::preset_listing();
        return listing;
    }
}
