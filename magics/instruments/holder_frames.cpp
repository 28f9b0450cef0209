#include "instruments/holder_frames.hpp"

#include <cstring>

namespace gillab
{
    namespace
    {
        // Bounds on what is copied of a code object; longer is treated as unreadable.
        constexpr std::size_t max_linetable_bytes = 1 << 16;
        constexpr std::size_t max_name_chars = 4096;

        bool same_identity(const gillab_code_identity& a, const gillab_code_identity& b)
        {
            return a.filename == b.filename && a.qualname == b.qualname && a.linetable == b.linetable &&
                   a.first_line == b.first_line && a.code_units == b.code_units;
        }

        std::string ascii_at(std::uintptr_t text)
        {
            std::string out(max_name_chars, '\0');
            const long length = gillab_read_ascii(text, out.data(), out.size());
            out.resize(length > 0 ? static_cast<std::size_t>(length) : 0);
            return out;
        }
    }

    std::uint32_t holder_frames::code_index(const gillab_frame_place& frame)
    {
        auto found = m_code_at.find(frame.code);
        if (found != m_code_at.end() && same_identity(found->second.identity, frame.identity)) return found->second.index;
        code_copy copy;
        copy.filename = ascii_at(frame.identity.filename);
        copy.qualname = ascii_at(frame.identity.qualname);
        copy.first_line = frame.identity.first_line;
        copy.linetable.resize(max_linetable_bytes);
        const long size = gillab_read_bytes(frame.identity.linetable, copy.linetable.data(), copy.linetable.size());
        copy.linetable.resize(size > 0 ? static_cast<std::size_t>(size) : 0);
        copy.linetable.shrink_to_fit();
        const auto index = static_cast<std::uint32_t>(m_codes.size());
        m_codes.push_back(std::move(copy));
        m_code_at[frame.code] = {frame.identity, index};
        return index;
    }

    place_id holder_frames::place_of(std::uintptr_t thread_state)
    {
        ++m_reads;
        gillab_frame_place frame{};
        const int read = gillab_read_frame(thread_state, &frame);
        if (read == 0) return no_python_frame;
        if (read < 0)
        {
            ++m_unreadable;
            return unknown_place;
        }
        const std::uint32_t code = code_index(frame);
        const std::uint64_t key = (static_cast<std::uint64_t>(code) << 32) |
                                  (static_cast<std::uint64_t>(static_cast<std::uint32_t>(frame.instruction)) << 8) |
                                  frame.opcode;
        // instruction < 2^22 (frame_reader's bound), so the key's fields do not overlap.
        auto [it, added] = m_place_of.try_emplace(key, static_cast<place_id>(m_places.size()));
        if (added) m_places.push_back({code, frame.instruction, frame.opcode});
        return it->second;
    }
}
