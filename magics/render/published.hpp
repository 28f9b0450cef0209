// The course's published figures as a magic shows them beside its own measurement,
// read from the gillab package's published.json through gillab.course.published.for_magic:
// the one home of those figures, which the lectures and the tests read too.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace gillab
{
    // Call with the GIL held (the first call per magic reads it); an unknown magic is Python's KeyError.
    const nlohmann::json& published_for_magic(const std::string& magic);
}
