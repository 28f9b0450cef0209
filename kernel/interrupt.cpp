#include "interrupt.hpp"

#include <chrono>
#include <csignal>
#include <pthread.h>
#include <signal.h>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <pybind11/stl.h>

namespace gillab
{
    namespace
    {
        using namespace std::chrono_literals;

        py::module_ process_tree()
        {
            return py::module_::import("gillab.runners.process_tree");
        }

        void set_sigint_blocked(bool blocked)
        {
            sigset_t set;
            sigemptyset(&set);
            sigaddset(&set, SIGINT);
            pthread_sigmask(blocked ? SIG_BLOCK : SIG_UNBLOCK, &set, nullptr);
        }

        std::set<unsigned long> python_thread_idents()
        {
            std::set<unsigned long> idents;
            py::module_ threading = py::module_::import("threading");
            for (py::handle thread : threading.attr("enumerate")())
            {
                py::object ident = thread.attr("ident");
                if (!ident.is_none())
                {
                    idents.insert(ident.cast<unsigned long>());
                }
            }
            return idents;
        }

        template <class Done>
        bool wait_until(Done done, std::chrono::milliseconds budget)
        {
            auto deadline = std::chrono::steady_clock::now() + budget;
            while (!done())
            {
                if (std::chrono::steady_clock::now() >= deadline)
                {
                    return false;
                }
                std::this_thread::sleep_for(10ms);
            }
            return true;
        }
    }

    void block_sigint_in_new_threads()
    {
        std::signal(SIGINT, SIG_IGN);
        set_sigint_blocked(true);
    }

    interruptible_cell::interruptible_cell()
        : m_threads_before(python_thread_idents())
        , m_children_before(process_tree().attr("live_descendants")().cast<std::vector<pid_t>>())
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
        std::vector<unsigned long> threads;
        for (unsigned long ident : python_thread_idents())
        {
            if (!m_threads_before.count(ident))
            {
                threads.push_back(ident);
                // Raised at the thread's next bytecode; a thread blocked in C
                // (a long sleep) sees it only when that call returns.
                PyThreadState_SetAsyncExc(ident, PyExc_KeyboardInterrupt);
            }
        }
        // Children got the same SIGINT (jupyter_client signals the process
        // group): they get a moment to exit on their own, then are made to.
        const auto processes = process_tree().attr("started_since")(m_children_before).cast<std::vector<pid_t>>();
        process_tree().attr("stop")(processes);

        std::size_t threads_left = 0;
        // Threads need the GIL to see their exception: wait with it released.
        auto remaining_threads = [&]
        {
            py::gil_scoped_acquire acquire;
            std::set<unsigned long> alive = python_thread_idents();
            std::size_t count = 0;
            for (unsigned long ident : threads) count += alive.count(ident);
            return count;
        };
        {
            py::gil_scoped_release release;
            wait_until([&] { return (threads_left = remaining_threads()) == 0; }, 1000ms);
        }

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
