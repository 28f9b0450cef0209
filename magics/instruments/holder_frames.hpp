// Where the GIL's holder is in its Python code, sample by sample, read on
// the sampler's thread without the GIL (frame_reader.h): each sample's place
// is a small number naming (code object, instruction). A code object seen
// for the first time is copied (file, qualified name, line table) so its
// lines can be decoded after the watch, when it may no longer exist; a code
// address seen before is trusted only while its identifying fields still
// match (a freed code object's address can be reused by another).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include "instruments/frame_reader.h"

namespace gillab
{
    using place_id = std::uint32_t;
    // The frame could not be read consistently (it changed while read, or an implausible value).
    inline constexpr place_id unknown_place = std::numeric_limits<place_id>::max();
    // The holder ran no Python frame (C code between frames: start-up, finalisation, a C thread).
    inline constexpr place_id no_python_frame = unknown_place - 1;

    struct code_copy
    {
        std::string filename;  // empty when not ASCII or unreadable
        std::string qualname;
        int first_line = 0;
        std::vector<std::uint8_t> linetable;  // empty when unreadable: lines unknown
    };

    struct frame_place
    {
        std::uint32_t code = 0;  // index into codes()
        std::int32_t instruction = 0;
        std::uint8_t opcode = 0;  // as found (a specialised opcode possibly)
    };

    class holder_frames
    {
    public:
        // Sampler thread only. The place of the thread whose PyThreadState is `thread_state`.
        place_id place_of(std::uintptr_t thread_state);

        const std::vector<code_copy>& codes() const { return m_codes; }
        const std::vector<frame_place>& places() const { return m_places; }
        std::uint64_t reads() const { return m_reads; }
        std::uint64_t unreadable() const { return m_unreadable; }

    private:
        std::uint32_t code_index(const gillab_frame_place& frame);

        struct known_code
        {
            gillab_code_identity identity;
            std::uint32_t index;
        };
        std::vector<code_copy> m_codes;
        std::vector<frame_place> m_places;
        std::unordered_map<std::uintptr_t, known_code> m_code_at;
        std::unordered_map<std::uint64_t, place_id> m_place_of;
        std::uint64_t m_reads = 0;
        std::uint64_t m_unreadable = 0;
    };
}
