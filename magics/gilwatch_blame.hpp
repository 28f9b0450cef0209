// %%gilwatch's blame: for each thread that waited for the GIL, the holders
// and lines it waited behind (time and share of its wait, ranked), and the
// timeline's turns labelled with the line each holder spent them at. Added to
// the result watch_result builds; lines are named as the student reads them
// (gillab.magics.code_places).
#pragma once

#include <string>

#include "instruments/blame_places.hpp"
#include "render/result.hpp"

namespace gillab
{
    // Adds the blame table, data["blame"] and the turns' hover labels (blame on), or a note saying it was off.
    void add_blame(Result& result, const gil_watch_record& watch, const watched_cell& cell);
}
