// The cell of a cell magic as a real, importable module, so that worker
// processes started by spawn or forkserver can unpickle its functions
// (the `Can't get attribute 'job' on <module '__main__'>` trap).
// The module lives in a private (0700) temp folder, removed with the object.
#pragma once

#include <string>

#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    class cell_module
    {
    public:
        // If the cell defines none of `entry_points`, its body becomes
        // `def <entry_points[0]>(i): <body>`; otherwise it is imported as is,
        // and top-level code in it is setup that runs once here.
        cell_module(const std::string& magic, const std::string& source, const std::vector<std::string>& entry_points);
        ~cell_module();

        cell_module(const cell_module&) = delete;
        cell_module& operator=(const cell_module&) = delete;

        py::object module() const { return m_module; }
        bool defines(const std::string& name) const;
        // Where it lives, so a fresh interpreter can import it too.
        const std::string& name() const { return m_name; }
        const std::string& folder() const { return m_folder; }

    private:
        py::object m_module;
        std::string m_name;
        std::string m_folder;
    };
}
