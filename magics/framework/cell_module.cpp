#include "framework/cell_module.hpp"

#include <algorithm>

#include <pybind11/stl.h>

namespace gillab
{
    namespace
    {
        py::module_ cell_modules()
        {
            return py::module_::import("gillab.magics.cell_modules");
        }
    }

    cell_module::cell_module(const std::string& magic, const std::string& source,
                             const std::vector<std::string>& entry_points)
    {
        py::tuple written = cell_modules().attr("write")(magic, source, entry_points);
        m_folder = written[0].cast<std::string>();
        m_name = written[1].cast<std::string>();
        m_top_level_names = written[2].cast<std::vector<std::string>>();
    }

    py::object cell_module::module() const
    {
        if (!m_module) m_module = cell_modules().attr("load")(m_folder, m_name);
        return m_module;
    }

    cell_module::~cell_module()
    {
        try
        {
            cell_modules().attr("remove")(m_folder, m_name);
        }
        catch (py::error_already_set&)
        {
            // Never let clean-up hide the magic's own result or error.
        }
    }

    bool cell_module::defines(const std::string& name) const
    {
        if (m_module) return py::hasattr(m_module, name.c_str());
        return std::find(m_top_level_names.begin(), m_top_level_names.end(), name) != m_top_level_names.end();
    }
}
