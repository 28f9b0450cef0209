// Driver for bench/args_parse: the median CPU time of arg_parser::parse for
// %%gilbench's option set, over rounds of calls, for a few typical lines;
// and a fresh parser's first parse (the one that declares the options).
// Prints one JSON object.
#include <algorithm>
#include <ctime>
#include <cstdio>
#include <string>
#include <vector>

#include "args.hpp"

using namespace gillab;

namespace
{
    arg_parser gilbench_sized()
    {
        return arg_parser("gilbench", "Options shaped as %%gilbench's.",
                          {{"preset", 'p', "NAME", ""}, {"modes", 'm', "MODE,...", ""}, {"workers", 'w', "N,...", ""}, {"jobs", 'n', "N,...", ""}, {"repeats", 'r', "N", ""}, {"warmup", 0, "N", ""}, {"scaling", 0, "strong|weak", ""}, {"start-method", 0, "METHOD", ""}, {"startup", 0, "included|apart", ""}, {"budget", 0, "DURATION", ""}, {"memory", 0, "", ""}, {"python", 0, "PATH_OR_NAME,...", ""}, {"out", 'o', "NAME", ""}});
    }

    // The thread's CPU time: on a shared, loaded machine close to what the
    // wall time would be on an idle one.
    double cpu_us()
    {
        timespec now{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        return now.tv_sec * 1e6 + now.tv_nsec * 1e-3;
    }

    template <class Action>
    double median_us(int rounds, int calls, Action action)
    {
        std::vector<double> us;
        for (int round = 0; round < rounds; ++round)
        {
            const double start = cpu_us();
            for (int i = 0; i < calls; ++i) action();
            us.push_back((cpu_us() - start) / calls);
        }
        std::sort(us.begin(), us.end());
        return us[us.size() / 2];
    }
}

int main(int argc, char** argv)
{
    const int rounds = argc > 1 ? std::stoi(argv[1]) : 21;
    const int calls = argc > 2 ? std::stoi(argv[2]) : 2000;
    const arg_parser parser = gilbench_sized();
    const std::vector<std::pair<const char*, std::string>> lines = {
        {"empty", ""},
        {"typical", "--modes sequential,threads --workers 1,2,4 --budget 15s -o r --python 3.13,3.13t --memory"},
        {"unknown option", "--workers 1,2 --frobnicate"}};
    std::printf("{");
    for (const auto& [name, line] : lines)
    {
        const std::string text = line;
        std::printf("\"%s\": %.3f, ", name, median_us(rounds, calls, [&] {
                        try
                        {
                            parser.parse(text);
                        }
                        catch (const usage_error&)
                        {}
                    }));
    }
    std::printf("\"first parse of a new parser (--workers 1)\": %.3f}\n",
                median_us(rounds, calls / 10, [] { gilbench_sized().parse("--workers 1"); }));
}
