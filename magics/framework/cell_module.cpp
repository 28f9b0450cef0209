#include "framework/cell_module.hpp"

#include <algorithm>

#include "framework/python_side.hpp"

namespace gillab
{
    cell_module::cell_module(const std::string& magic, const std::string& source,
                             const std::vector<std::string>& entry_points)
    {
        python_side::written_cell written = python_side::write_cell(magic, source, entry_points);
        m_folder = std::move(written.folder);
        m_name = std::move(written.name);
        m_top_level_names = std::move(written.top_level_names);
    }

    py::object cell_module::module() const
    {
        if (!m_module) m_module = python_side::load_cell(m_folder, m_name);
        return m_module;
    }

    cell_module::~cell_module()
    {
        try
        {
            python_side::remove_cell(m_folder, m_name);
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
