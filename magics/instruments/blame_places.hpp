// The places a watch's sampler saw (holder_frames.hpp) named for people:
// decoded to lines from the copied line tables (code_positions.hpp), then
// described by gillab.magics.code_places ("cell line 4", "In [3] line 2", a file's
// line, its text, the C call it is in; framework/python_side's describe_places asks it).
// Shared by %%gilwatch's and %%heartbeat's blame.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "instruments/gil_watch.hpp"

namespace gillab
{
    // The cell the watch ran (empty for %gilwatch start / stop) and the file name it was compiled
    // under; IPython's transform (%%gilwatch) drops the body's leading blank lines, a plain compile
    // (%%heartbeat) keeps them.
    struct watched_cell
    {
        std::string source;
        std::string filename;
        bool drops_leading_blank_lines = true;
    };

    struct place_view
    {
        std::string where;  // "cell line 4", "In [3] line 2", "threading.py:324", or why unknown
        std::string text;  // the line's source, stripped
        std::string function;
        std::string file;
        int line = -1;  // as `where` counts it
        std::string instruction;
        std::string calls;  // the C function a call instruction is in, best effort
    };

    // What code_places.describe is asked: one {filename, qualname, line, end_line, column,
    // end_column, opcode} per place of the watch, in place_id order; and the watched cell.
    nlohmann::json places_to_describe(const gil_watch_record& watch);
    nlohmann::json watched_json(const watched_cell& cell);

    // Its answer, one view per place.
    std::vector<place_view> place_views(const nlohmann::json& described);

    // The view of `place`, the special places (unknown_place, no_python_frame) included.
    const place_view& view_of(const std::vector<place_view>& views, place_id place);

    // A holder as blamed_wait names it: a thread's name, "(unattributed)" or the GIL being free.
    std::string holder_name(const gil_watch_record& watch, std::size_t holder);

    // "cell line 4: product = a * b", at most `max_chars`.
    std::string place_label(const place_view& view, std::size_t max_chars);
}
