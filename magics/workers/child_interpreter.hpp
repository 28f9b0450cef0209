// Measuring under another CPython (`--python PATH_OR_NAME`): a task of the pure-Python runners
// (python/gillab/runners/) run in a child of it, the request as JSON on stdin, the answer as JSON
// on a pipe of its own (fd 3), progress lines before it. The kernel's native probes cannot load
// into another interpreter, so a magic that accepts --python keeps its measuring loop in a runner
// task that both the kernel and the child run.
//
// The parts: workers/interpreters (which interpreters there are and what each one is),
// workers/child_process (the process and its pipes), workers/sid_root (the bubblewrap command of
// Debian unstable's root). How a magic plugs in: framework/runner.hpp (run_task and
// for_each_interpreter run a task here or in a child alike; see docs/magics.md).
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "workers/interpreters.hpp"

namespace gillab
{
    // Runs runners/child.py under the target's interpreter with `request`; returns its "result".
    // Interruptible: on KeyboardInterrupt the child is killed and reaped before the exception
    // propagates. The child's stdout goes to the kernel's (so the cell's prints reach the
    // notebook). The task's progress reports reach `on_progress` (shell thread, GIL held) while it
    // runs. Throws usage_error for the cell's own mistakes and std::runtime_error for failures.
    nl::json run_in_child(const measurement_target& target, const nl::json& request, const std::string& magic,
                          const std::function<void(const std::string&)>& on_progress = {});
}
