#include "interrupt.hpp"
#include "python_side.hpp"

#include <chrono>
#include <csignal>
#include <pthread.h>
#include <signal.h>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <pybind11/stl.h>

#include "workers/python_threads.hpp"

namespace gillab
{
    namespace
    {
        using namespace std::chrono_literals;

        void set_sigint_blocked(bool blocked)
        {
            sigset_t set;
            sigemptyset(&set);
            sigaddset(&set, SIGINT);
            pthread_sigmask(blocked ? SIG_BLOCK : SIG_UNBLOCK, &set, nullptr);
        }
    }

    void block_sigint_in_new_threads()
    {
        std::signal(SIGINT, SIG_IGN);
        set_sigint_blocked(true);
    }

    interruptible_cell::interruptible_cell()
        : m_threads_before(python_thread_idents())
        , m_children_before(kernel_python_side::live_children())
    {
        py::module_ signal = py::module_::import("signal");
        signal.attr("signal")(SIGINT, signal.attr("default_int_handler"));
        set_sigint_blocked(false);
    }

    interruptible_cell::~interruptible_cell()
    {
        // SIG_IGN also discards a SIGINT that arrived too late for this cell,
        // so it cannot interrupt the next one.
        std::signal(SIGINT, SIG_IGN);
        set_sigint_blocked(true);
    }

    std::string interruptible_cell::stop_what_the_cell_started()
    {
        const std::vector<python_thread> threads = threads_started_since(m_threads_before);
        raise_in_threads(threads, PyExc_KeyboardInterrupt);
        // Children got the same SIGINT (jupyter_client signals the process
        // group): they get a moment to exit on their own, then are made to.
        const std::vector<pid_t> processes = kernel_python_side::stop_children_started_since(m_children_before);
        const std::size_t threads_left = wait_for_threads(threads, 1000ms).size();

        if (threads.empty() && processes.empty())
        {
            return "";
        }
        std::ostringstream report;
        report << "gillab: the interrupted cell had started " << threads.size() << " thread(s) and "
               << processes.size() << " process(es); ";
        if (threads_left == 0)
        {
            report << "all stopped.";
        }
        else
        {
            report << threads_left << " thread(s) still blocked in a C call will stop when it returns.";
        }
        return report.str();
    }
}
