#include "magic_state.hpp"

#include <cstdio>
#include <sstream>
#include <vector>

#include "switch_interval.hpp"

namespace gillab
{
    namespace
    {
        magic_state_guard* innermost = nullptr;

        py::module_ kernel_state()
        {
            return py::module_::import("gillab.kernel_state");
        }

        py::module_ process_tree()
        {
            return py::module_::import("gillab.runners.process_tree");
        }

        std::string interval_text(double seconds)
        {
            char text[32];
            std::snprintf(text, sizeof text, "%g ms", seconds * 1e3);
            return text;
        }
    }

    magic_state_guard::magic_state_guard()
        : m_interval_s(switch_interval_s())
        , m_processes(process_tree().attr("live_descendants")())
        , m_saved(kernel_state().attr("snapshot")())
        , m_outer(innermost)
    {
        innermost = this;
    }

    magic_state_guard::~magic_state_guard()
    {
        innermost = m_outer;
        if (m_restored) return;
        // Unwinding (an error, KeyboardInterrupt): keep any pending Python error as it is.
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        try
        {
            restore();
        }
        catch (const std::exception&)
        {
            PyErr_Clear();
        }
        PyErr_Restore(type, value, traceback);
    }

    void magic_state_guard::keep_switch_interval()
    {
        if (innermost != nullptr) innermost->m_keep_interval = true;
    }

    void magic_state_guard::keep_interpreter_state()
    {
        if (innermost != nullptr) innermost->m_keep_state = true;
    }

    std::string magic_state_guard::restore()
    {
        m_restored = true;
        std::vector<std::string> restored;
        const double now_s = switch_interval_s();
        if (!m_keep_interval && now_s != m_interval_s)
        {
            py::module_::import("sys").attr("setswitchinterval")(m_interval_s);
            restored.push_back("the switch interval (a job set " + interval_text(now_s) + "; back to " +
                               interval_text(m_interval_s) + ")");
        }
        if (!m_keep_state)
        {
            for (py::handle name : kernel_state().attr("restore")(m_saved))
            {
                restored.push_back(name.cast<std::string>());
            }
        }
        const py::list left = process_tree().attr("started_since")(m_processes);
        if (!left.empty())
        {
            process_tree().attr("kill_trees")(left);
            process_tree().attr("reap")(left);
        }
        if (restored.empty() && left.empty()) return "";
        std::ostringstream note;
        note << "gillab: ";
        if (!restored.empty())
        {
            note << "put back after the jobs: ";
            for (std::size_t i = 0; i < restored.size(); ++i) note << (i ? ", " : "") << restored[i];
            note << (left.empty() ? "." : "; ");
        }
        if (!left.empty())
        {
            note << "stopped " << left.size() << " child process" << (left.size() == 1 ? "" : "es")
                 << " a job left running.";
        }
        return note.str();
    }
}
