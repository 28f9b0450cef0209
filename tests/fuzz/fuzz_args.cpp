// libFuzzer target for the native argument parsing every magic shares:
// split_arguments, parse_duration and arg_parser.parse with each typed
// accessor. A bad input may only end in a one-line usage_error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <string>

#include "framework/args.hpp"

namespace
{
    void require_one_line(const gillab::usage_error& error)
    {
        const std::string message = error.what();
        if (message.empty() || message.find('\n') != std::string::npos || message.size() > 2000)
        {
            std::fprintf(stderr, "usage_error is not one short line: %s\n", message.c_str());
            std::abort();
        }
    }

    template <class Access>
    void accessor(Access access)
    {
        try
        {
            access();
        }
        catch (const gillab::usage_error& error)
        {
            require_one_line(error);
        }
    }

    // Every option kind a magic can declare, as the magics declare them.
    const gillab::arg_parser& parser()
    {
        static const gillab::arg_parser instance(
            "fuzzed", "A parser with every kind of option.",
            {{"modes", 'm', "MODE,...", "choices, many"},
             {"workers", 'w', "N,...", "integers"},
             {"jobs", 'n', "N", "integer"},
             {"ratio", 0, "X", "number"},
             {"interval", 'i', "DURATION", "duration"},
             {"scaling", 0, "strong|weak", "one choice"},
             {"verbose", 'v', "", "a flag"},
             {"out", 'o', "NAME", "text"}},
            1, "WHAT: one positional");
        return instance;
    }
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string line(reinterpret_cast<const char*>(data), size);
    accessor([&] { gillab::split_arguments(line); });
    accessor([&] {
        const double seconds = gillab::parse_duration(line);
        if (seconds != seconds) std::abort();  // NaN must be refused
    });
    accessor([&] {
        const gillab::parsed_args args = parser().parse(line);
        accessor([&] { args.choices("modes", {"a"}, {"sequential", "threads", "processes", "asyncio"}, true); });
        accessor([&] { args.integers("workers", {1}, 1, 10000); });
        accessor([&] { args.integer("jobs", 8, 1, 1000000); });
        accessor([&] { args.number("ratio", 0.5, 0.0, 1.0); });
        accessor([&] { args.duration("interval", 0.005, 1e-6, 10.0); });
        accessor([&] { args.choices("scaling", {"strong"}, {"strong", "weak"}, false); });
        accessor([&] { args.text("out", ""); });
        args.has("verbose");
        args.positionals();
    });
    return 0;
}
