#include "framework/python_side.hpp"

#include <map>

#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>

namespace gillab::python_side
{
    using namespace pybind11::literals;

    py::module_ task_module(const std::string& task)
    {
        return py::module_::import("gillab.runners.tasks").attr("task_module")(task).cast<py::module_>();
    }

    py::object cell_error_type()
    {
        return py::module_::import("gillab.runners.cell_error").attr("CellError");
    }

    written_cell write_cell(const std::string& magic, const std::string& source, const std::vector<std::string>& entry_points)
    {
        py::tuple written = py::module_::import("gillab.magics.cell_modules").attr("write")(magic, source, entry_points);
        return {written[0].cast<std::string>(), written[1].cast<std::string>(), written[2].cast<std::vector<std::string>>()};
    }

    py::object load_cell(const std::string& folder, const std::string& name)
    {
        return py::module_::import("gillab.magics.cell_modules").attr("load")(folder, name);
    }

    void remove_cell(const std::string& folder, const std::string& name)
    {
        py::module_::import("gillab.magics.cell_modules").attr("remove")(folder, name);
    }

    py::object enter_magic_state(const py::object& tools)
    {
        py::object guard = py::module_::import("gillab.magics.state_guard").attr("MagicStateGuard")(tools);
        guard.attr("__enter__")();
        return guard;
    }

    std::string restore_magic_state(const py::object& guard)
    {
        return guard.attr("restore")().cast<std::string>();
    }

    void leave_magic_state(const py::object& guard)
    {
        guard.attr("__exit__")(py::none(), py::none(), py::none());
    }

    void keep_switch_interval()
    {
        py::module_::import("gillab.magics.state_guard").attr("keep_switch_interval")();
    }

    void keep_interpreter_state()
    {
        py::module_::import("gillab.magics.state_guard").attr("keep_interpreter_state")();
    }

    nl::json usable_cores()
    {
        return py::module_::import("gillab.runners.cores").attr("usable_cores")();
    }

    long long core_count()
    {
        return usable_cores()["cores"].get<long long>();
    }

    const nl::json& published_for_magic(const std::string& magic)
    {
        // Read once per magic (the GIL guards the map): a result is built without asking Python again.
        static std::map<std::string, nl::json> read;
        auto found = read.find(magic);
        if (found != read.end()) return found->second;
        nl::json figures = py::module_::import("gillab.course.published").attr("for_magic")(magic).cast<nl::json>();
        return read.emplace(magic, std::move(figures)).first->second;
    }

    nl::json preset_definitions()
    {
        return py::module_::import("gillab.preset_jobs").attr("definitions")().cast<nl::json>();
    }

    std::string preset_listing()
    {
        return py::module_::import("gillab.preset_jobs").attr("listing")().cast<std::string>();
    }

    std::string translated_manual(const std::string& english, const std::string& locale_dir)
    {
        return py::module_::import("gillab.magics.manuals").attr("translated")(english, locale_dir).cast<std::string>();
    }

    std::optional<drawn_png> draw_png(const nl::json& chart_model)
    {
        // Imported on the first chart, not with gillab: matplotlib's import is
        // most of what the first chart costs (bench/chart_cost).
        py::object charts;
        try
        {
            charts = py::module_::import("gillab.magics.charts");
        }
        catch (py::error_already_set& e)
        {
            if (!e.matches(PyExc_ImportError)) throw;
            return std::nullopt;
        }
        const py::tuple drawn = charts.attr("render_png")(py::cast(chart_model));
        return drawn_png{drawn[0].cast<std::string>(), drawn[1].cast<int>(), drawn[2].cast<int>()};
    }

    nl::json describe_kernel_interpreter()
    {
        return py::module_::import("gillab.runners.interpreter").attr("describe")();
    }

    nl::json concurrency_facts()
    {
        return py::module_::import("gillab.magics.concurrency_facts").attr("facts")();
    }

    std::vector<place_view> describe_places(const gil_watch_record& watch, const watched_cell& cell)
    {
        const py::object described = py::module_::import("gillab.magics.code_places").attr("describe")(places_to_describe(watch), watched_json(cell));
        return place_views(described.cast<nl::json>());
    }
}
