#include "framework/thread_tools.hpp"

#include <chrono>
#include <cmath>
#include <set>
#include <vector>

#include "workers/python_threads.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        py::object* tools = nullptr;  // made once, never freed: it must outlive the interpreter's last call

        std::vector<python_thread> threads_of(const py::list& threads)
        {
            std::vector<python_thread> found;
            for (py::handle t : threads) found.push_back(python_thread_of(t.ptr()));
            return found;
        }

        // Those of `threads` (Thread objects, as given) that are among `chosen`.
        py::list among(const py::list& threads, const std::vector<python_thread>& chosen)
        {
            std::set<unsigned long> idents;
            for (const python_thread& t : chosen) idents.insert(t.ident);
            py::list kept;
            for (py::handle t : threads)
            {
                if (idents.count(t.attr("ident").cast<unsigned long>())) kept.append(t);
            }
            return kept;
        }

        std::chrono::milliseconds as_ms(double seconds)
        {
            return std::chrono::milliseconds(std::llround(seconds * 1e3));
        }

        py::list busy(const py::list& threads, double window_s, double share)
        {
            return among(threads, busy_threads(threads_of(threads), as_ms(window_s), share));
        }

        void raise_in(const py::list& threads, const py::handle& exception_type)
        {
            raise_in_threads(threads_of(threads), exception_type.ptr());
        }

        py::list wait_for(const py::list& threads, double budget_s)
        {
            return among(threads, wait_for_threads(threads_of(threads), as_ms(budget_s)));
        }
    }

    void bind_thread_tools(py::module_& m)
    {
        tools = new py::object(py::module_::import("types").attr("SimpleNamespace")(
            "live_threads"_a = py::cpp_function(&live_thread_objects, py::name("live_threads"),
                                                "the live threads threading knows, those without an ident yet left out"),
            "busy_threads"_a = py::cpp_function(&busy, py::name("busy_threads"), "threads"_a, "window_s"_a, "share"_a,
                                                "those of the threads that used at least share of a CPU over window_s"),
            "raise_in_threads"_a = py::cpp_function(&raise_in, py::name("raise_in_threads"), "threads"_a, "exception_type"_a,
                                                    "raises exception_type in each thread at its next bytecode"),
            "wait_for_threads"_a = py::cpp_function(&wait_for, py::name("wait_for_threads"), "threads"_a, "budget_s"_a,
                                                    "waits up to budget_s for the threads to end; those still alive")));
        m.attr("thread_tools") = *tools;
    }

    py::object thread_tools()
    {
        return *tools;
    }
}
