#include "render/published.hpp"

#include <pybind11/pybind11.h>
#include <pybind11_json/pybind11_json.hpp>

namespace gillab
{
    nlohmann::json published_for_magic(const std::string& magic)
    {
        namespace py = pybind11;
        return py::module_::import("gillab.course.published").attr("for_magic")(magic).cast<nlohmann::json>();
    }
}
