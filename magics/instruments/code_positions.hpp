// Source positions of a CPython 3.11 instruction from a copy of its code
// object's co_linetable (the format of CPython's InternalDocs/locations.md):
// pure decoding of bytes already copied, so it needs neither the GIL nor the
// code object, which may be gone by the time a result is built.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace gillab
{
    struct code_position
    {
        int line = -1;  // -1: the instruction has no line (CPython's None)
        int end_line = -1;
        int column = -1;  // 0-based UTF-8 byte offsets, -1 when not recorded
        int end_column = -1;
    };

    // The position of the instruction `instruction` code units from the start;
    // nothing when the table ends before it or is malformed.
    std::optional<code_position> position_at(const std::vector<std::uint8_t>& linetable, int first_line,
                                             int instruction);
}
