#include "instruments/switch_interval.hpp"

#include <cstdio>

#include <pybind11/pybind11.h>

#include "base/usage_error.hpp"

namespace gillab
{
    namespace py = pybind11;

    double switch_interval_s()
    {
        return py::module_::import("sys").attr("getswitchinterval")().cast<double>();
    }

    void set_switch_interval(double seconds)
    {
        py::module_::import("sys").attr("setswitchinterval")(seconds);
    }

    void check_switch_interval(double seconds, const std::string& what)
    {
        if (!(seconds >= min_switch_interval_s && seconds <= max_switch_interval_s))
        {
            char message[200];
            std::snprintf(message, sizeof message, "%s: switch interval %g s is out of range; accepted: 1us to 1s",
                          what.c_str(), seconds);
            throw usage_error(message);
        }
    }

    scoped_switch_interval::scoped_switch_interval()
        : m_saved_s(switch_interval_s())
    {}

    scoped_switch_interval::scoped_switch_interval(double seconds)
        : scoped_switch_interval()
    {
        set(seconds);
    }

    void scoped_switch_interval::set(double seconds)
    {
        set_switch_interval(seconds);
    }

    scoped_switch_interval::~scoped_switch_interval()
    {
        // Runs while an exception (KeyboardInterrupt included) may be pending:
        // keep it, restore, then put it back.
        py::gil_scoped_acquire gil;
        PyObject *type, *value, *traceback;
        PyErr_Fetch(&type, &value, &traceback);
        try
        {
            set_switch_interval(m_saved_s);
        }
        catch (const py::error_already_set&)
        {
            // A destructor cannot report it; the pending exception matters more.
        }
        PyErr_Restore(type, value, traceback);
    }
}
