#include "instruments/blame_places.hpp"

#include "instruments/code_positions.hpp"

namespace gillab
{
    namespace
    {
        place_view special_place(place_id place)
        {
            place_view view;
            view.where = place == no_python_frame ? "(no Python frame: C code)" : "(unknown: the frame changed while read)";
            return view;
        }
    }

    nlohmann::json places_to_describe(const gil_watch_record& w)
    {
        nlohmann::json places = nlohmann::json::array();
        for (const frame_place& p : w.places)
        {
            const code_copy& code = w.codes.at(p.code);
            const code_position at = position_at(code.linetable, code.first_line, p.instruction).value_or(code_position{});
            places.push_back({{"filename", code.filename}, {"qualname", code.qualname}, {"line", at.line}, {"end_line", at.end_line}, {"column", at.column}, {"end_column", at.end_column}, {"opcode", p.opcode}});
        }
        return places;
    }

    nlohmann::json watched_json(const watched_cell& cell)
    {
        return {{"filename", cell.filename}, {"source", cell.source}, {"drops_leading_blank_lines", cell.drops_leading_blank_lines}};
    }

    std::vector<place_view> place_views(const nlohmann::json& described)
    {
        std::vector<place_view> views;
        for (const nlohmann::json& d : described)
        {
            views.push_back({d.at("where").get<std::string>(), d.at("text").get<std::string>(),
                             d.at("function").get<std::string>(), d.at("file").get<std::string>(), d.at("line").get<int>(),
                             d.at("instruction").get<std::string>(), d.at("calls").is_null() ? "" : d.at("calls").get<std::string>()});
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
