#include "instruments/code_positions.hpp"

namespace gillab
{
    namespace
    {
        // Entry kinds, the 4 bits after an entry's start bit.
        constexpr int kind_one_line_first = 10;  // 10..12: line delta 0..2, then two column bytes
        constexpr int kind_no_columns = 13;
        constexpr int kind_long = 14;
        constexpr int kind_none = 15;

        struct reader
        {
            const std::vector<std::uint8_t>& bytes;
            std::size_t at = 0;
            bool ok = true;

            int next()
            {
                if (at >= bytes.size())
                {
                    ok = false;
                    return 0;
                }
                return bytes[at++];
            }

            // 6 bits a byte, least significant first, 0x40 while more follow.
            unsigned varint()
            {
                int byte = next();
                unsigned value = byte & 63;
                for (int shift = 6; ok && (byte & 64) && shift < 32; shift += 6)
                {
                    byte = next();
                    value |= static_cast<unsigned>(byte & 63) << shift;
                }
                return value;
            }

            int signed_varint()
            {
                const unsigned value = varint();
                return (value & 1) ? -static_cast<int>(value >> 1) : static_cast<int>(value >> 1);
            }
        };
    }

    std::optional<code_position> position_at(const std::vector<std::uint8_t>& linetable, int first_line,
                                             int instruction)
    {
        if (instruction < 0) return std::nullopt;
        reader in{linetable};
        int line = first_line;
        int address = 0;
        while (in.at < linetable.size())
        {
            const int first = in.next();
            if (!(first & 0x80)) return std::nullopt;
            const int kind = (first >> 3) & 15;
            const int length = (first & 7) + 1;
            code_position here;
            if (kind == kind_none)
            {
                // no line: the running line stays as it is
            }
            else if (kind == kind_long)
            {
                line += in.signed_varint();
                here = {line, line + static_cast<int>(in.varint()), 0, 0};
                here.column = static_cast<int>(in.varint()) - 1;
                here.end_column = static_cast<int>(in.varint()) - 1;
            }
            else if (kind == kind_no_columns)
            {
                line += in.signed_varint();
                here = {line, line, -1, -1};
            }
            else if (kind >= kind_one_line_first)
            {
                line += kind - kind_one_line_first;
                here = {line, line, 0, 0};
                here.column = in.next();
                here.end_column = in.next();
            }
            else
            {
                const int second = in.next();
                here = {line, line, kind * 8 + ((second >> 4) & 7), 0};
                here.end_column = here.column + (second & 15);
            }
            if (!in.ok) return std::nullopt;
            if (instruction < address + length) return here;
            address += length;
        }
        return std::nullopt;
    }
}
