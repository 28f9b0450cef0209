#include "workers/python_threads.hpp"

#include <fstream>
#include <map>
#include <thread>

#include <pybind11/pybind11.h>

#include "base/clock.hpp"

namespace gillab
{
    namespace py = pybind11;

    namespace
    {
        // Nanoseconds the thread has run (the first field of its schedstat), or -1.
        long long cpu_ns(unsigned long native_id)
        {
            std::ifstream stat("/proc/self/task/" + std::to_string(native_id) + "/schedstat");
            long long ns = -1;
            stat >> ns;
            return stat ? ns : -1;
        }
    }

    python_thread python_thread_of(PyObject* thread)
    {
        const py::handle t(thread);
        const py::object native_id = t.attr("native_id");
        return {t.attr("ident").cast<unsigned long>(), native_id.is_none() ? 0 : native_id.cast<unsigned long>(),
                t.attr("name").cast<std::string>()};
    }

    py::list live_thread_objects()
    {
        py::list live;
        for (py::handle thread : py::module_::import("threading").attr("enumerate")())
        {
            if (!thread.attr("ident").is_none()) live.append(thread);
        }
        return live;
    }

    std::vector<python_thread> python_threads()
    {
        std::vector<python_thread> found;
        for (py::handle thread : live_thread_objects()) found.push_back(python_thread_of(thread.ptr()));
        return found;
    }

    std::set<unsigned long> python_thread_idents()
    {
        std::set<unsigned long> idents;
        for (const python_thread& t : python_threads()) idents.insert(t.ident);
        return idents;
    }

    std::vector<python_thread> threads_started_since(const std::set<unsigned long>& before)
    {
        std::vector<python_thread> started;
        for (const python_thread& t : python_threads())
        {
            if (!before.count(t.ident)) started.push_back(t);
        }
        return started;
    }

    std::vector<python_thread> still_alive(const std::vector<python_thread>& threads)
    {
        const std::set<unsigned long> alive = python_thread_idents();
        std::vector<python_thread> left;
        for (const python_thread& t : threads)
        {
            if (alive.count(t.ident)) left.push_back(t);
        }
        return left;
    }

    std::vector<python_thread> wait_for_threads(const std::vector<python_thread>& threads,
                                                std::chrono::milliseconds budget)
    {
        std::vector<python_thread> left = still_alive(threads);
        const auto deadline = monotonic::now() + budget;
        while (!left.empty() && monotonic::now() < deadline)
        {
            {
                // Threads need the GIL to see their exception or to finish.
                py::gil_scoped_release release;
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
            left = still_alive(left);
        }
        return left;
    }

    std::vector<python_thread> busy_threads(const std::vector<python_thread>& threads,
                                            std::chrono::milliseconds window, double share)
    {
        std::map<unsigned long, long long> before;
        for (const python_thread& t : threads) before[t.ident] = cpu_ns(t.native_id);
        const auto started = monotonic::now();
        {
            py::gil_scoped_release release;
            std::this_thread::sleep_for(window);
        }
        const double elapsed_ns = std::chrono::duration<double, std::nano>(monotonic::now() - started).count();
        std::vector<python_thread> busy;
        for (const python_thread& t : still_alive(threads))
        {
            const long long now = cpu_ns(t.native_id);
            if (before[t.ident] >= 0 && now >= 0 && (now - before[t.ident]) >= share * elapsed_ns)
            {
                busy.push_back(t);
            }
        }
        return busy;
    }

    void raise_in_threads(const std::vector<python_thread>& threads, PyObject* exception)
    {
        for (const python_thread& t : threads) PyThreadState_SetAsyncExc(t.ident, exception);
    }
}
