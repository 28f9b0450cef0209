// Measuring under another CPython (`--python PATH_OR_NAME`): find the
// interpreter, ask it what it is, and run a task of the pure-Python runners
// (python/gillab/runners/) in a child of it, JSON in over stdin and
// JSON back over a pipe of its own. The kernel's native probes cannot load
// into another interpreter, so a magic that accepts --python keeps its
// measuring loop in a runner task that both the kernel and the child run.
//
// Started natively (posix_spawn and poll), not by the runner through subprocess: the wait holds no
// GIL and ends at the kernel's interrupt at once (workers/interruptible), progress lines come back as
// they arrive, and the child's own output goes through the kernel's native capture like any other.
//
// How a magic plugs in: framework/runner.hpp (run_task and for_each_interpreter
// run a task here or in a child alike; see docs/magics.md).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/usage_error.hpp"

namespace gillab
{
    namespace nl = nlohmann;

    // What an interpreter says about itself (runners/interpreter.py).
    struct interpreter_info
    {
        std::string executable;
        std::string version;  // "3.9.18"
        bool free_threaded_build = false;
        bool gil_enabled = true;
        nl::json raw;  // everything the probe reported (its "build": how it was compiled)

        // How it was compiled, for people: "PGO+LTO", "no PGO/LTO", "PGO+LTO, debug".
        std::string build_text() const;
        // Version and build, never a path: "3.11.2 (Debian, PGO+LTO)",
        // "3.13.5t (project build, no PGO/LTO, GIL off)", "3.9.18 (pyenv, no PGO/LTO)".
        std::string label() const;
    };

    // One interpreter a magic measures under: the kernel itself or a child.
    struct measurement_target
    {
        bool is_kernel = false;
        std::string requested;  // as the student wrote it
        interpreter_info info;
    };

    // "kernel" (this process), a path, "python3.9", "3.9", "3.13t", "3.9.18":
    // PATH first, then the project's builds (GILLAB_CACHE, default
    // /var/cache/gillab), then Debian unstable's 3.14 / 3.15 in the project's
    // root file system there, then pyenv's versions. Empty `list`: the kernel
    // alone. Throws usage_error naming what was not found or not usable.
    std::vector<measurement_target> resolve_interpreters(const std::string& list, const std::string& magic);

    // Every CPython found on this machine (executables, real paths deduplicated).
    std::vector<std::string> discover_interpreters();

    // Where an executable was found: "project build", "Debian unstable root (bwrap)", "pyenv" or "PATH".
    std::string interpreter_origin(const std::string& executable);

    // Whether `executable` is one of Debian unstable's in the project's root file system
    // (tools/build-sid-pythons): a child of it runs under bubblewrap with that root as /, the
    // runners, the cell's folder and the working folder bound in at their own paths.
    bool runs_in_sid_root(const std::string& executable);

    // The command that starts `executable`: itself, or bubblewrap running it in that root, with
    // `writable` folders bound in too, in `workdir` (one of them; default: the kernel's working
    // folder). What the course's helpers use to run a script there.
    std::vector<std::string> interpreter_command(const std::string& executable, const std::vector<std::string>& writable = {},
                                                 const std::string& workdir = "");

    // Adds to a magic's table notes, when it measured other interpreters, where each one is
    // (labels carry no path), one note per target run under bubblewrap, and when their builds
    // differ, that a speed difference between them is partly the build's.
    void add_interpreter_notes(std::vector<std::string>& notes, const std::vector<measurement_target>& targets);

    // What the kernel's own interpreter is, described as a probe describes a child.
    interpreter_info kernel_interpreter_info();

    // Runs the probe; `env` adds variables (e.g. PYTHON_GIL=1). Throws
    // usage_error when the executable does not answer as a Python.
    interpreter_info probe_interpreter(const std::string& executable, const std::map<std::string, std::string>& env = {});

    // Runs runners/child.py under `executable` with `request`; returns its
    // "result". Interruptible: on KeyboardInterrupt the child is killed and
    // reaped before the exception propagates. The child's stdout goes to the
    // kernel's (so the cell's prints reach the notebook). The task's progress
    // reports reach `on_progress` (shell thread, GIL held) while it runs.
    // Throws usage_error for the cell's own mistakes and std::runtime_error
    // for failures.
    nl::json run_in_child(const measurement_target& target, const nl::json& request, const std::string& magic,
                          const std::function<void(const std::string&)>& on_progress = {});

    // The folder holding child.py and the task modules.
    std::string runners_directory();
}
