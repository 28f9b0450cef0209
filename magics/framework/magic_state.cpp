#include "framework/magic_state.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <vector>

#include "framework/python_side.hpp"
#include "workers/python_threads.hpp"
#include "instruments/switch_interval.hpp"

namespace gillab
{
    namespace
    {
        magic_state_guard* innermost = nullptr;

        using namespace std::chrono_literals;

        // What the threads a magic's jobs left running come to: the busy ones
        // are stopped, the idle ones stay. One clause for the note, or "".
        std::string settle_threads(const std::set<unsigned long>& before)
        {
            std::vector<python_thread> left = threads_started_since(before);
            if (!left.empty()) left = wait_for_threads(left, 50ms);  // those that were finishing
            if (left.empty()) return "";
            const std::vector<python_thread> busy = busy_threads(left, 100ms, 0.005);
            raise_in_threads(busy, PyExc_SystemExit);
            const std::vector<python_thread> unstopped = wait_for_threads(busy, 1000ms);
            std::vector<python_thread> stopped, idle;
            for (const python_thread& t : left)
            {
                auto same = [&](const python_thread& other) { return other.ident == t.ident; };
                const bool was_busy = std::any_of(busy.begin(), busy.end(), same);
                if (!was_busy) idle.push_back(t);
                else if (std::none_of(unstopped.begin(), unstopped.end(), same)) stopped.push_back(t);
            }
            std::vector<std::string> parts;
            if (!stopped.empty()) parts.push_back("stopped " + describe_threads(stopped) + " a job left running");
            if (!unstopped.empty())
                parts.push_back(describe_threads(unstopped) + " a job left running would not stop");
            if (!idle.empty())
                parts.push_back("left " + describe_threads(idle) + " a job started: waiting, using no CPU");
            std::string clause;
            for (std::size_t i = 0; i < parts.size(); ++i) clause += (i ? "; " : "") + parts[i];
            return clause;
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
        , m_processes(python_side::live_processes())
        , m_threads(python_thread_idents())
        , m_saved(python_side::snapshot_state())
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
            set_switch_interval(m_interval_s);
            restored.push_back("the switch interval (a job set " + interval_text(now_s) + "; back to " +
                               interval_text(m_interval_s) + ")");
        }
        if (!m_keep_state)
        {
            for (std::string& name : python_side::restore_state(m_saved)) restored.push_back(std::move(name));
        }
        const std::size_t left = python_side::stop_processes_started_since(m_processes);
        const std::string threads = settle_threads(m_threads);
        std::vector<std::string> clauses;
        if (!restored.empty())
        {
            std::ostringstream clause;
            clause << "put back after the jobs: ";
            for (std::size_t i = 0; i < restored.size(); ++i) clause << (i ? ", " : "") << restored[i];
            clauses.push_back(clause.str());
        }
        if (left > 0)
        {
            clauses.push_back("stopped " + std::to_string(left) + " child process" + (left == 1 ? "" : "es") +
                              " a job left running");
        }
        if (!threads.empty()) clauses.push_back(threads);
        if (clauses.empty()) return "";
        std::string note = "gillab: ";
        for (std::size_t i = 0; i < clauses.size(); ++i) note += (i ? "; " : "") + clauses[i];
        return note + ".";
    }
}
