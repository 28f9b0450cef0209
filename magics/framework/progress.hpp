// A live progress line for long magics: one display, updated in place with
// update_display_data. Shell thread only (xeus publishes safely from there).
#pragma once

#include <string>

#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    class progress_line
    {
    public:
        explicit progress_line(const std::string& magic);
        void update(const std::string& text);

    private:
        std::string m_magic;
        py::object m_handle;
    };
}
