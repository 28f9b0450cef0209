#include "gilbench_presets.hpp"

namespace gillab
{
    namespace
    {
        const char* lecture5 = "\"Threads vs Processes vs asyncio, Measured\" (course lecture 5): Python 3.9.6, "
                               "Apple M1 Pro (6P+2E cores), macOS, spawn, median of 5";
        const char* gil_waits = "\"the thread waits as long as you asked\" (course, Russian article): CPython 3.13.7, "
                                "Linux x86_64, 2 cores";

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
                 lecture5,
                 {{"sequential", "1", 8, 1.70, {}, {}},
                  {"threads", "1", 8, 1.73, {}, {}}, {"threads", "2", 8, 1.81, {}, {}},
                  {"threads", "4", 8, 1.80, {}, {}}, {"threads", "8", 8, 1.85, {}, {}},
                  {"processes", "1", 8, 1.77, {}, {}}, {"processes", "2", 8, 0.92, {}, {}},
                  {"processes", "4", 8, 0.52, {}, {}}, {"processes", "8", 8, 0.47, {}, {}}},
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
                 std::string(lecture5) + "; the default pool there had min(32, 8+4) = 12 workers; peak RSS from getrusage",
                 {{"sequential", "1", 100, 10.355, {}, {}},
                  {"threads", "default", 100, 0.932, {}, {}}, {"threads", "default", 1000, 8.684, {}, {}},
                  {"threads", "per-job", 100, 0.113, {}, {}}, {"threads", "per-job", 1000, 0.210, {}, {}},
                  {"threads", "per-job", 10000, 0.703, {}, 90.0},
                  {"asyncio", "per-job", 100, 0.103, {}, {}}, {"asyncio", "per-job", 1000, 0.110, {}, {}},
                  {"asyncio", "per-job", 10000, 0.196, {}, 39.0}},
                 0.1, false},
                {"sleep", "8 sleeps of 50 ms at 1/2/4/8 threads: waiting releases the GIL",
                 "import time\n"
                 "def job(i):\n"
                 "    time.sleep(0.05)\n"
                 "    return i\n",
                 "--modes sequential,threads --workers 1,2,4,8 --jobs 8 --repeats 5 --warmup 1",
                 std::string(gil_waits) + "; x7.90 with 8 threads in \"The GIL is not a lock on your CPU\" "
                                          "(3.13.2, macOS, 12 cores, 250 ms sleeps)",
                 {{"sequential", "1", 8, 0.4016, {}, {}}, {"threads", "8", 8, 0.0511, 7.86, {}}},
                 0.05, false},
                {"zlib", "zlib compressing one ~6 MB buffer per thread (weak scaling): zlib releases the GIL",
                 "import random, zlib\n"
                 "WORDS = 'the gil lets one thread run python bytecode at a time while others wait'.split()\n"
                 "DATA = ' '.join(random.Random(0).choices(WORDS, k=1_500_000)).encode()[:5_999_872]\n"
                 "def job(i):\n"
                 "    return len(zlib.compress(DATA))\n",
                 "--modes sequential,threads --workers 1,2 --jobs 1 --scaling weak --repeats 5 --warmup 1",
                 std::string(gil_waits) + "; one 5,999,872-byte buffer per thread",
                 {{"sequential", "1", 1, 0.0564, {}, {}}, {"threads", "2", 2, 0.0553, 2.04, {}}},
                 {}, true},
                {"hashlib-small", "sha256 of 16 MiB in 1 KiB updates at 1/2 threads: below hashlib's 2048-byte "
                                  "threshold the GIL stays held",
                 hashlib_job("1024  # below HASHLIB_GIL_MINSIZE (2048): hashed with the GIL held"),
                 "--modes sequential,threads --workers 1,2 --jobs 1 --scaling weak --repeats 5 --warmup 1",
                 std::string(gil_waits) + "; the threshold is HASHLIB_GIL_MINSIZE = 2048 bytes per call "
                                          "(no timings published)",
                 {}, {}, true},
                {"hashlib-large", "the same with 64 KiB updates: above the threshold hashlib releases the GIL",
                 hashlib_job("65536  # above HASHLIB_GIL_MINSIZE (2048): hashed without the GIL"),
                 "--modes sequential,threads --workers 1,2 --jobs 1 --scaling weak --repeats 5 --warmup 1",
                 std::string(gil_waits) + "; the threshold is HASHLIB_GIL_MINSIZE = 2048 bytes per call "
                                          "(no timings published)",
                 {}, {}, true},
                {"startup", "process pool start-up alone: 8 spawn workers and a no-op",
                 "def job(i):\n"
                 "    return i\n",
                 "--modes processes --workers 8 --jobs 8 --repeats 5 --warmup 1 --start-method spawn --startup included",
                 lecture5,
                 {{"processes", "8", 8, 0.099, {}, {}}},
                 {}, false},
            };
        }
    }

    const std::vector<gilbench_preset>& gilbench_presets()
    {
        static const std::vector<gilbench_preset> presets = make_presets();
        return presets;
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
