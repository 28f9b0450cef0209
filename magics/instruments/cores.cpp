#include "instruments/cores.hpp"

#include <pybind11/pybind11.h>
#include <pybind11_json/pybind11_json.hpp>

namespace gillab
{
    nlohmann::json usable_cores()
    {
        return pybind11::module_::import("gillab.runners.cores").attr("usable_cores")();
    }

    long long core_count()
    {
        return usable_cores()["cores"].get<long long>();
    }
}
