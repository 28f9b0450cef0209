#include "gilbench_presets.hpp"

#include "core/published.hpp"

namespace gillab
{
    namespace
    {
        // sha256 of 16 MiB in updates of one chunk size: the two hashlib presets
        // differ only in which side of the GIL-release threshold it is.
        std::string hashlib_job(const std::string& chunk_line)
        {
            return "import hashlib, random\n"
                   "DATA = memoryview(random.Random(0).randbytes(16 * 2**20))\n"
                   "CHUNK = " + chunk_line + "\n"
                   "def job(i):\n"
                   "    h = hashlib.sha256()\n"
                   "    for start in range(0, len(DATA), CHUNK):\n"
                   "        h.update(DATA[start:start + CHUNK])\n"
                   "    return h.hexdigest()\n";
        }

        std::vector<gilbench_preset> make_presets()
        {
            return {
                {"cpu", "8 equal pure-Python jobs at 1/2/4/8 workers: sequential vs threads vs processes (about a minute)",
                 "def job(i):\n"
                 "    total = 0\n"
                 "    for k in range(3_000_000):\n"
                 "        total += k * k % 7\n"
                 "    return total\n",
                 "--modes sequential,threads,processes --workers 1,2,4,8 --jobs 8 --repeats 3 --warmup 0 "
                 "--start-method spawn --startup included",
                 {}, true},
                {"io", "100 / 1,000 / 10,000 waits of 100 ms: default thread pool vs one thread per job vs asyncio, "
                       "with peak RSS in a fresh process (about a minute)",
                 "import asyncio, time\n"
                 "def job(i):\n"
                 "    time.sleep(0.1)\n"
                 "    return i\n"
                 "async def ajob(i):\n"
                 "    await asyncio.sleep(0.1)\n"
                 "    return i\n",
                 "--modes threads,asyncio --workers default,per-job --jobs 100,1000,10000 --repeats 3 --warmup 0 "
                 "--budget 15s --memory",
                 0.1, false},
                {"sleep", "8 sleeps of 50 ms at 1/2/4/8 threads: waiting releases the GIL",
                 "import time\n"
                 "def job(i):\n"
                 "    time.sleep(0.05)\n"
                 "    return i\n",
                 "--modes sequential,threads --workers 1,2,4,8 --jobs 8 --repeats 5 --warmup 1",
                 0.05, false},
                {"zlib", "zlib compressing one ~6 MB buffer per thread (weak scaling): zlib releases the GIL",
                 "import random, zlib\n"
                 "WORDS = 'the gil lets one thread run python bytecode at a time while others wait'.split()\n"
                 "DATA = ' '.join(random.Random(0).choices(WORDS, k=1_500_000)).encode()[:5_999_872]\n"
                 "def job(i):\n"
                 "    return len(zlib.compress(DATA))\n",
                 "--modes sequential,threads --workers 1,2 --jobs 1 --scaling weak --repeats 5 --warmup 1",
                 {}, true},
                {"hashlib-small", "sha256 of 16 MiB in 1 KiB updates at 1/2 threads: below hashlib's 2048-byte "
                                  "threshold the GIL stays held",
                 hashlib_job("1024  # below HASHLIB_GIL_MINSIZE (2048): hashed with the GIL held"),
                 "--modes sequential,threads --workers 1,2 --jobs 1 --scaling weak --repeats 5 --warmup 1",
                 {}, true},
                {"hashlib-large", "the same with 64 KiB updates: above the threshold hashlib releases the GIL",
                 hashlib_job("65536  # above HASHLIB_GIL_MINSIZE (2048): hashed without the GIL"),
                 "--modes sequential,threads --workers 1,2 --jobs 1 --scaling weak --repeats 5 --warmup 1",
                 {}, true},
                {"startup", "process pool start-up alone: 8 spawn workers and a no-op",
                 "def job(i):\n"
                 "    return i\n",
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
