#include "render/base64.hpp"

#include <cstdint>

namespace gillab
{
    namespace
    {
        constexpr std::string_view alphabet =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

        std::uint32_t byte_at(std::string_view bytes, std::size_t index)
        {
            return index < bytes.size() ? static_cast<unsigned char>(bytes[index]) : 0u;
        }

        char sextet(std::uint32_t group, int shift)
        {
            return alphabet[(group >> shift) & 0x3F];
        }
    }

    std::string base64_encode(std::string_view bytes)
    {
        std::string encoded;
        encoded.reserve((bytes.size() + 2) / 3 * 4);
        for (std::size_t i = 0; i < bytes.size(); i += 3)
        {
            const std::uint32_t group =
                byte_at(bytes, i) << 16 | byte_at(bytes, i + 1) << 8 | byte_at(bytes, i + 2);
            const std::size_t present = bytes.size() - i;
            encoded += sextet(group, 18);
            encoded += sextet(group, 12);
            encoded += present > 1 ? sextet(group, 6) : '=';
            encoded += present > 2 ? sextet(group, 0) : '=';
        }
        return encoded;
    }
}
