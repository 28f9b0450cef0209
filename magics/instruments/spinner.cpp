#include "instruments/spinner.hpp"

#include "base/usage_error.hpp"

namespace gillab
{
    const std::vector<spinner_load>& spinner_loads()
    {
        static const std::vector<spinner_load> loads = {
            {"python", "a pure-Python loop of 200 additions", false},
            {"bigint", "one multiply of two ~300,000-bit integers (7**100000 * 11**100000)", false},
            {"sorted", "sorted() of 300,000 floats", false},
            {"regex", "a backtracking regex, (x+x+)+y against 18 x's", false},
            {"zlib", "zlib.compress of 1.2 MB of text (releases the GIL)", true},
        };
        return loads;
    }

    std::vector<std::string> spinner_load_names()
    {
        std::vector<std::string> names;
        for (const spinner_load& load : spinner_loads()) names.push_back(load.name);
        return names;
    }

    const spinner_load& find_spinner_load(const std::string& name)
    {
        for (const spinner_load& load : spinner_loads())
        {
            if (load.name == name) return load;
        }
        throw usage_error("no spinner load named '" + name + "'");
    }
}
