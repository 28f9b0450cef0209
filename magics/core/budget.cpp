#include "budget.hpp"

namespace gillab
{
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
        m_thread = std::thread([this, deadline]
        {
            {
                std::unique_lock<std::mutex> lock(m_mutex);
                if (m_wake.wait_until(lock, deadline, [this] { return m_disarmed; })) return;
            }
            // The owner disarms with the GIL held, so checking again under the
            // GIL decides the race between "run finished" and "budget spent".
            py::gil_scoped_acquire gil;
            std::lock_guard<std::mutex> lock(m_mutex);
            if (m_disarmed) return;
            for (unsigned long id : m_thread_ids) PyThreadState_SetAsyncExc(id, run_over_budget_type());
            m_fired = true;
        });
    }

    void budget_watchdog::disarm()
    {
        if (!m_thread.joinable()) return;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_disarmed = true;
        }
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
}
