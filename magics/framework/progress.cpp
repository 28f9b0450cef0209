#include "framework/progress.hpp"

using namespace pybind11::literals;

namespace gillab
{
    namespace
    {
        py::dict bundle(const std::string& magic, const std::string& text)
        {
            py::dict data;
            data["text/plain"] = magic + ": " + text;
            return data;
        }
    }

    progress_line::progress_line(const std::string& magic)
        : m_magic(magic)
    {
        py::module_ display = py::module_::import("IPython.display");
        m_handle = display.attr("display")(bundle(m_magic, "starting"), "raw"_a = true, "display_id"_a = true);
    }

    void progress_line::update(const std::string& text)
    {
        if (!m_handle.is_none())
        {
            m_handle.attr("update")(bundle(m_magic, text), "raw"_a = true);
        }
    }
}
