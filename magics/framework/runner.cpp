#include "framework/runner.hpp"

#include <memory>

#include <pybind11_json/pybind11_json.hpp>

#include "framework/gil_trace_tool.hpp"
#include "framework/gil_watch_tool.hpp"
#include "framework/python_side.hpp"
#include "instruments/budget.hpp"
#include "instruments/gil_probe.hpp"
#include "instruments/python_probe.hpp"
#include "workers/thread_pool.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        std::unique_ptr<gil_probe> make_probe(const std::string& schedule, double every_s, std::size_t capacity)
        {
            if (schedule != "sleep" && schedule != "yield")
                throw py::value_error("GilProbe: schedule must be sleep or yield, not '" + schedule + "'");
            return std::make_unique<gil_probe>(schedule == "yield" ? gil_probe::schedule::yield : gil_probe::schedule::periodic,
                                               every_s, capacity);
        }

        // The native pool as a runner calls it: results, wall time from the
        // release to the last job done, budget stop, and the failing job's traceback.
        py::dict native_threads(py::object job, long jobs, int workers, double budget_s)
        {
            pool_run run = run_in_native_threads(std::move(job), jobs, workers, budget_s);
            py::list results;
            for (py::object& r : run.results) results.append(std::move(r));
            return py::dict("results"_a = results, "wall_s"_a = run.wall_s, "over_budget"_a = run.over_budget,
                            "failed_job"_a = run.failed ? py::object(py::int_(run.failed_job)) : py::object(py::none()),
                            "error"_a = run.failed ? py::object(py::str(run.error_text)) : py::object(py::none()));
        }

        py::object in_fresh_interpreter(py::dict part, py::function progress)
        {
            static const measurement_target fresh{false, "a fresh process of the kernel's interpreter",
                                                  kernel_interpreter_info()};
            const nl::json request = py::cast<nl::json>(part);
            nl::json answer = run_in_child(fresh, request, request.value("task", "gillab"),
                                           [&progress](const std::string& status) { progress(status); });
            return py::cast(answer);
        }
    }

    void bind_runner_tools(py::module_& m)
    {
        py::class_<gil_probe, std::unique_ptr<gil_probe>>(
            m, "GilProbe",
            "A native thread that asks for the GIL: every every_s (schedule 'sleep') or again at once after "
            "a time.sleep(0) (schedule 'yield'), keeping up to capacity samples.")
            .def(py::init(&make_probe), "schedule"_a, "every_s"_a, "capacity"_a)
            .def("start", &gil_probe::start)
            .def("stop", &gil_probe::stop, "joins the probe thread (the GIL is released meanwhile)")
            .def(
                "report", [](const gil_probe& probe) { return py::cast(native_probe_report(probe)); },
                "its figures, in the shape a runner hands back (the sample statistics summarised)");
    }

    py::object native_tools(const py::dict& user_ns)
    {
        return py::module_::import("types").attr("SimpleNamespace")(
            "threads"_a = py::cpp_function(&native_threads, "job"_a, "jobs"_a, "workers"_a, "budget_s"_a),
            "watchdog"_a = budget_watchdog_type(),
            "RunOverBudget"_a = py::handle(run_over_budget_type()),
            "probe"_a = py::type::of<gil_probe>(),
            "watch"_a = gil_watch_type(),
            "gil_trace"_a = gil_trace_type(),
            "in_fresh_interpreter"_a = py::cpp_function(&in_fresh_interpreter, "part"_a, "progress"_a),
            "namespace"_a = user_ns);
    }

    nl::json run_task(const measurement_target& target, const nl::json& request, const std::string& magic,
                      const status_callback& progress)
    {
        if (!target.is_kernel) return run_in_child(target, request, magic, progress);
        return run_kernel_task(request, magic, py::dict(), progress).cast<nl::json>();
    }

    py::dict run_kernel_task(const nl::json& request, const std::string& magic, const py::dict& user_ns,
                             const status_callback& progress)
    {
        py::cpp_function report([progress](const std::string& status) { if (progress) progress(status); });
        try
        {
            py::module_ task = python_side::task_module(request.at("task").get<std::string>());
            return task.attr("measure")(request, report, native_tools(user_ns)).cast<py::dict>();
        }
        catch (py::error_already_set& error)
        {
            if (error.matches(python_side::cell_error_type())) throw usage_error("%" + magic + ": " + py::str(error.value()).cast<std::string>());
            throw;
        }
    }

    void for_each_interpreter(const std::vector<measurement_target>& targets, progress_line* progress,
                              const std::function<void(const interpreter_turn&)>& measure)
    {
        for (const measurement_target& target : targets)
        {
            interpreter_turn turn{target, "", {}};
            if (target.is_kernel) turn.target.info = kernel_interpreter_info();
            // Version and build, no path (add_interpreter_notes says where each one is).
            turn.label = (target.is_kernel ? "kernel " : "") + turn.target.info.label();
            const std::string label = turn.label;
            if (progress) turn.progress = [progress, label](const std::string& status) { progress->update(label + ": " + status); };
            else turn.progress = [](const std::string&) {};
            if (progress && !target.is_kernel) progress->update(label + ": starting a child interpreter");
            measure(turn);
        }
    }
}
