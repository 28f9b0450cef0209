// A time budget for one run of Python code: once it is spent, the threads
// running that code get RunOverBudget raised in them (PyThreadState_SetAsyncExc),
// the same way an interrupt reaches worker threads, and again every 0.1 s
// until the run is over (so an asyncio job that blocks the loop after the
// first one was stopped is stopped too). The exception derives from
// BaseException so that a job's `except Exception` does not swallow it. It is
// delivered at the thread's next bytecode: a job blocked inside one C call
// (time.sleep, a long compress) is stopped when that call returns.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include <pybind11/pybind11.h>

#include "base/clock.hpp"

namespace gillab
{
    namespace py = pybind11;

    // The exception type (one for the whole process).
    PyObject* run_over_budget_type();

    bool is_over_budget(py::error_already_set& error);

    // Arms on construction; call every method with the GIL held.
    class budget_watchdog
    {
    public:
        budget_watchdog(monotonic::time_point deadline, std::vector<unsigned long> python_thread_ids);
        ~budget_watchdog();
        budget_watchdog(const budget_watchdog&) = delete;
        budget_watchdog& operator=(const budget_watchdog&) = delete;

        // No exception is raised after this returns. Cheap and never blocks:
        // the first thing a timed thread calls once its run is over (or was
        // stopped), before any bytecode that could take a late exception.
        void stop();
        // stop(), end the watchdog's thread, and withdraw an exception it
        // raised that the threads have not seen yet, so none leaks into later code.
        void disarm();
        bool fired() const { return m_fired; }

    private:
        std::vector<unsigned long> m_thread_ids;
        std::mutex m_mutex;
        std::condition_variable m_wake;
        bool m_stopped = false;  // under m_mutex, and written and read with the GIL held
        std::atomic<bool> m_fired{false};
        std::thread m_thread;
    };

    // The watchdog as the Python type _gillab.BudgetWatchdog(after_s, thread_ids)
    // with stop() and disarm(), and RunOverBudget, on the module.
    void bind_budget(py::module_& m);
    py::object budget_watchdog_type();
}
