// The cell of a cell magic as a real, importable module, so that worker
// processes started by spawn or forkserver can unpickle its functions
// (the `Can't get attribute 'job' on <module '__main__'>` trap).
// The module lives in a private (0700) temp folder, removed with the object.
#pragma once

#include <string>
#include <vector>

#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    class cell_module
    {
    public:
        // If the cell defines none of `entry_points`, its body becomes
        // `def <entry_points[0]>(i): <body>`; otherwise it is written as is,
        // and top-level code in it is setup that runs once per import.
        // It is imported here on the first module() call, so a cell measured
        // only in other interpreters (--python) never runs in the kernel.
        cell_module(const std::string& magic, const std::string& source, const std::vector<std::string>& entry_points);
        ~cell_module();

        cell_module(const cell_module&) = delete;
        cell_module& operator=(const cell_module&) = delete;

        py::object module() const;
        // Whether the cell binds `name` at its top level (def, assignment, import).
        bool defines(const std::string& name) const;
        // Where it lives, so a fresh interpreter can import it too.
        const std::string& name() const { return m_name; }
        const std::string& folder() const { return m_folder; }

    private:
        mutable py::object m_module;  // imported on first use
        std::vector<std::string> m_top_level_names;
        std::string m_name;
        std::string m_folder;
    };
}
