// A magic's measuring loop is one pure-Python runner, runners/task_NAME.py,
// called as measure(request, progress, tools): in the kernel with the native
// instruments as `tools`, in a child interpreter (--python) with None, where
// the native module cannot load and the runner uses its Python stand-ins.
// This is the one way a magic gets there, for every interpreter it measures.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include "workers/child_interpreter.hpp"
#include "framework/progress.hpp"

namespace gillab
{
    namespace py = pybind11;
    namespace nl = nlohmann;

    // The instruments' Python types on the `_gillab` module (GilProbe).
    void bind_runner_tools(py::module_& m);

    // What a runner gets in the kernel:
    //   threads(job, jobs, workers, budget_s) -> {results, wall_s, over_budget, failed_job, error}:
    //       the native pool (workers/thread_pool), released together, timed from the release;
    //   watchdog(after_s, thread_ids), RunOverBudget: the budget (instruments/budget);
    //   probe(schedule, every_s, capacity): a native GIL probe with start / stop / report;
    //   watch(period_s, blame, follow_caller): who holds the GIL while a with-block runs
    //       (framework/gil_watch_tool);
    //   gil_trace(): every GIL hand-over while a with-block runs (framework/gil_trace_tool);
    //   in_fresh_interpreter(part, progress): a part of the request measured by runners/child.py
    //       in a fresh process of the kernel's own interpreter;
    //   namespace: the user's namespace, where a magic's cell runs (empty for a magic without one).
    py::object native_tools(const py::dict& user_ns = py::dict());

    using status_callback = std::function<void(const std::string&)>;

    // runners/task_<request["task"]>.py's answer to `request` under `target`:
    // in the kernel with native_tools(), otherwise in a child (run_in_child).
    // A runner's CellError becomes a usage_error naming `magic`.
    nl::json run_task(const measurement_target& target, const nl::json& request, const std::string& magic,
                      const status_callback& progress = {});

    // The same in the kernel, the cell's namespace `user_ns` handed over as tools.namespace; the
    // answer as the runner made it, so that the native instruments it hands back (a finished
    // watch, a stopped probe) are there for the magic to read.
    py::dict run_kernel_task(const nl::json& request, const std::string& magic, const py::dict& user_ns,
                             const status_callback& progress = {});

    // One interpreter's turn in a magic's measurement.
    struct interpreter_turn
    {
        measurement_target target;  // the kernel's with its own description filled in
        std::string label;  // "kernel 3.11.2 (Debian, PGO+LTO)", "3.13.5t (project build, no PGO/LTO, GIL off)"
        status_callback progress;  // shows a status on the progress line, after the label
    };

    // Every target in turn, in order; a child's start is shown on `progress`
    // (none when null).
    void for_each_interpreter(const std::vector<measurement_target>& targets, progress_line* progress,
                              const std::function<void(const interpreter_turn&)>& measure);
}
