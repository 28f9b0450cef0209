#include "instruments/budget.hpp"

#include <pybind11/stl.h>

namespace gillab
{
    namespace
    {
        constexpr auto refire_every = std::chrono::milliseconds(100);
    }

    PyObject* run_over_budget_type()
    {
        // Created once and never freed: it must outlive every run.
        static PyObject* type = PyErr_NewExceptionWithDoc(
            "_gillab.RunOverBudget", "A measured run went over its --budget and was stopped.",
            PyExc_BaseException, nullptr);
        return type;
    }

    bool is_over_budget(py::error_already_set& error)
    {
        return error.matches(run_over_budget_type());
    }

    budget_watchdog::budget_watchdog(monotonic::time_point deadline, std::vector<unsigned long> python_thread_ids)
        : m_thread_ids(std::move(python_thread_ids))
    {
        run_over_budget_type();  // created here, with the GIL held
        m_thread = std::thread([this, deadline] {
            auto next = deadline;
            while (true)
            {
                {
                    std::unique_lock<std::mutex> lock(m_mutex);
                    if (m_wake.wait_until(lock, next, [this] { return m_stopped; })) return;
                }
                // The owner stops it with the GIL held, so checking again under
                // the GIL decides the race between "run over" and "budget spent".
                py::gil_scoped_acquire gil;
                std::lock_guard<std::mutex> lock(m_mutex);
                if (m_stopped) return;
                for (unsigned long id : m_thread_ids) PyThreadState_SetAsyncExc(id, run_over_budget_type());
                m_fired = true;
                next = monotonic::now() + refire_every;
            }
        });
    }

    void budget_watchdog::stop()
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_stopped = true;
    }

    void budget_watchdog::disarm()
    {
        if (!m_thread.joinable()) return;
        stop();
        m_wake.notify_all();
        {
            py::gil_scoped_release release;
            m_thread.join();
        }
        if (m_fired)
        {
            for (unsigned long id : m_thread_ids) PyThreadState_SetAsyncExc(id, nullptr);
        }
    }

    budget_watchdog::~budget_watchdog()
    {
        disarm();
    }

    void bind_budget(py::module_& m)
    {
        using namespace pybind11::literals;
        m.attr("RunOverBudget") = py::handle(run_over_budget_type());
        py::class_<budget_watchdog>(m, "BudgetWatchdog",
                                    "Raises RunOverBudget in the given Python threads once after_s have passed, "
                                    "and every 0.1 s after, until stopped.")
            .def(py::init([](double after_s, std::vector<unsigned long> thread_ids) {
                     const auto after = std::chrono::duration_cast<monotonic::duration>(std::chrono::duration<double>(after_s));
                     return std::make_unique<budget_watchdog>(monotonic::now() + after, std::move(thread_ids));
                 }),
                 "after_s"_a, "thread_ids"_a)
            .def("stop", &budget_watchdog::stop, "no exception is raised after this returns")
            .def("disarm", &budget_watchdog::disarm, "stop(), and withdraw an exception not yet delivered")
            .def_property_readonly("fired", &budget_watchdog::fired);
    }

    py::object budget_watchdog_type()
    {
        return py::type::of<budget_watchdog>();
    }
}
