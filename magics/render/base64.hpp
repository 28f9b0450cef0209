// Base64 (RFC 4648, standard alphabet, padded): Jupyter mime bundles carry
// binary payloads such as PNG images as base64 text.
#pragma once

#include <string>
#include <string_view>

namespace gillab
{
    std::string base64_encode(std::string_view bytes);
}
