#include "interrupt.hpp"

#include <chrono>
#include <csignal>
#include <dirent.h>
#include <fstream>
#include <pthread.h>
#include <signal.h>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

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

        std::vector<pid_t> read_pids(const std::string& path)
        {
            std::vector<pid_t> pids;
            std::ifstream in(path);
            pid_t pid;
            while (in >> pid)
            {
                pids.push_back(pid);
            }
            return pids;
        }

        // Children of every thread of `pid` (/proc/PID/task/TID/children).
        std::vector<pid_t> children_of(pid_t pid)
        {
            std::vector<pid_t> children;
            const std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
            DIR* dir = opendir(task_dir.c_str());
            if (dir == nullptr)
            {
                return children;
            }
            while (dirent* entry = readdir(dir))
            {
                if (entry->d_name[0] == '.')
                {
                    continue;
                }
                for (pid_t child : read_pids(task_dir + "/" + entry->d_name + "/children"))
                {
                    children.push_back(child);
                }
            }
            closedir(dir);
            return children;
        }

        char process_state(pid_t pid)
        {
            std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
            std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            auto close_paren = stat.rfind(')');
            return close_paren == std::string::npos || close_paren + 2 >= stat.size() ? 'X' : stat[close_paren + 2];
        }

        std::string command_line(pid_t pid)
        {
            std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
            return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        }

        // multiprocessing's shared helpers outlive the cell that happened to
        // start them by design; the next cell expects to find them.
        bool is_multiprocessing_helper(pid_t pid)
        {
            const std::string cmd = command_line(pid);
            return cmd.find("multiprocessing.resource_tracker") != std::string::npos ||
                   cmd.find("multiprocessing.forkserver") != std::string::npos;
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

    std::set<pid_t> live_descendants()
    {
        std::set<pid_t> found;
        std::vector<pid_t> frontier = children_of(getpid());
        while (!frontier.empty())
        {
            pid_t pid = frontier.back();
            frontier.pop_back();
            char state = process_state(pid);
            if (state == 'Z' || state == 'X' || !found.insert(pid).second)
            {
                continue;
            }
            for (pid_t child : children_of(pid))
            {
                frontier.push_back(child);
            }
        }
        return found;
    }

    interruptible_cell::interruptible_cell()
        : m_threads_before(python_thread_idents())
        , m_children_before(live_descendants())
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
        std::vector<pid_t> processes;
        for (pid_t pid : live_descendants())
        {
            if (!m_children_before.count(pid) && !is_multiprocessing_helper(pid))
            {
                processes.push_back(pid);
            }
        }

        std::size_t threads_left = 0;
        {
            py::gil_scoped_release release;
            // Children got the same SIGINT (jupyter_client signals the process
            // group); give them a moment to exit on their own, then insist.
            auto all_gone = [&]
            {
                for (pid_t pid : processes)
                {
                    char state = process_state(pid);
                    if (state != 'Z' && state != 'X')
                    {
                        return false;
                    }
                }
                return true;
            };
            if (!wait_until(all_gone, 300ms))
            {
                for (pid_t pid : processes) kill(pid, SIGTERM);
                if (!wait_until(all_gone, 300ms))
                {
                    for (pid_t pid : processes) kill(pid, SIGKILL);
                    wait_until(all_gone, 300ms);
                }
            }
        }
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
