// Every call the magics make into the gillab package, as typed C++ functions: the one file of
// magics/ that names the package's modules. python/gillab/seam.py lists them (CALLED_FROM_CPP),
// and tools/include-graph fails on a package import anywhere else. The ground-floor rooms
// (instruments/, render/) call none of these: what they need from Python is handed to them.
// Every function needs the GIL.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include "instruments/blame_places.hpp"

namespace gillab::python_side
{
    namespace py = pybind11;
    namespace nl = nlohmann;

    // The runner a magic's measurement runs through (its measure(request, progress, tools)),
    // found in TASKS of gillab.runners.tasks as a child finds it; CellError for an unknown task.
    py::module_ task_module(const std::string& task);

    // gillab.runners.cell_error.CellError: what a runner raises for a cell it cannot measure.
    py::object cell_error_type();

    // gillab.magics.cell_modules: a cell written as a module in a private folder.
    struct written_cell
    {
        std::string folder;
        std::string name;
        std::vector<std::string> top_level_names;
    };
    written_cell write_cell(const std::string& magic, const std::string& source, const std::vector<std::string>& entry_points);
    py::object load_cell(const std::string& folder, const std::string& name);
    void remove_cell(const std::string& folder, const std::string& name);

    // gillab.magics.state_guard: the scope every magic runs in (registry.cpp opens it around
    // each one). Entering snapshots what the magic's jobs may change; restoring puts it back and
    // gives the note saying what that was ("" when nothing had changed); leaving puts back what
    // no restore did (an error, an interrupt). `tools`: framework/thread_tools.
    py::object enter_magic_state(const py::object& tools);
    std::string restore_magic_state(const py::object& guard);
    void leave_magic_state(const py::object& guard);
    // For a magic whose purpose is to set the switch interval (%switchinterval 1ms), or to change
    // the interpreter state across cells (%gilwatch start/stop): the innermost running magic
    // keeps it as it finds it at its end.
    void keep_switch_interval();
    void keep_interpreter_state();

    // gillab.runners.cores: {cores, limited_by, why, affinity_cpus, quota_cpus, machine_cpus}.
    nl::json usable_cores();
    long long core_count();

    // gillab.course.published: a magic's published figures, read once per magic and kernel.
    const nl::json& published_for_magic(const std::string& magic);

    // gillab.preset_jobs: %%gilbench --preset's definitions and their listing for the manual.
    nl::json preset_definitions();
    std::string preset_listing();

    // gillab.magics.manuals: a manual's paragraphs in the kernel's language (gettext).
    std::string translated_manual(const std::string& english, const std::string& locale_dir);

    // gillab.magics.charts: a chart model drawn by matplotlib, as PNG bytes and display size;
    // nullopt when matplotlib cannot be imported.
    struct drawn_png
    {
        std::string bytes;
        int width = 0;
        int height = 0;
    };
    std::optional<drawn_png> draw_png(const nl::json& chart_model);

    // gillab.magics.concurrency_facts: %gilinfo's facts about this interpreter.
    nl::json concurrency_facts();

    // gillab.magics.code_places: the watch's places named for people (instruments/blame_places.hpp).
    std::vector<place_view> describe_places(const gil_watch_record& watch, const watched_cell& cell);

    // gillab.runners.interpreter: the kernel's own interpreter, as a probe describes a child's.
    nl::json describe_kernel_interpreter();
}
