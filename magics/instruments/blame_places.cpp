#include "instruments/blame_places.hpp"

#include <pybind11/pybind11.h>

#include "instruments/code_positions.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        place_view special_place(place_id place)
        {
            place_view view;
            view.where = place == no_python_frame ? "(no Python frame: C code)" : "(unknown: the frame changed while read)";
            return view;
        }
    }

    std::vector<place_view> describe_places(const gil_watch_record& w, const watched_cell& cell)
    {
        py::list places;
        for (const frame_place& p : w.places)
        {
            const code_copy& code = w.codes.at(p.code);
            const code_position at = position_at(code.linetable, code.first_line, p.instruction).value_or(code_position{});
            places.append(py::dict("filename"_a = code.filename, "qualname"_a = code.qualname, "line"_a = at.line,
                                   "end_line"_a = at.end_line, "column"_a = at.column, "end_column"_a = at.end_column,
                                   "opcode"_a = p.opcode));
        }
        py::dict watched("filename"_a = cell.filename, "source"_a = cell.source,
                         "drops_leading_blank_lines"_a = cell.drops_leading_blank_lines);
        py::list described = py::module_::import("gillab.magics.code_places").attr("describe")(places, watched);
        std::vector<place_view> views;
        for (py::handle d : described)
        {
            place_view v;
            v.where = d["where"].cast<std::string>();
            v.text = d["text"].cast<std::string>();
            v.function = d["function"].cast<std::string>();
            v.file = d["file"].cast<std::string>();
            v.line = d["line"].cast<int>();
            v.instruction = d["instruction"].cast<std::string>();
            v.calls = d["calls"].is_none() ? "" : d["calls"].cast<std::string>();
            views.push_back(std::move(v));
        }
        return views;
    }

    const place_view& view_of(const std::vector<place_view>& views, place_id place)
    {
        static const place_view unknown = special_place(unknown_place);
        static const place_view no_frame = special_place(no_python_frame);
        if (place < views.size()) return views[place];
        return place == no_python_frame ? no_frame : unknown;
    }

    std::string holder_name(const gil_watch_record& w, std::size_t holder)
    {
        if (holder == blamed_wait::nobody) return "(nobody: GIL free, the waiter was being woken)";
        if (holder >= w.registry->threads().size()) return "(unattributed)";
        return w.registry->name(holder);
    }

    std::string place_label(const place_view& v, std::size_t max_chars)
    {
        std::string label = v.where + (v.text.empty() ? "" : ": " + v.text);
        if (label.size() > max_chars) label = label.substr(0, max_chars - 3) + "...";
        return label;
    }
}
