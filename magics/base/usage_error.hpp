// The error every room throws for a student's bad input (an option's value,
// a missing cell, an interpreter that is not there): the framework shows it
// as IPython's one-line UsageError, no traceback.
#pragma once

#include <stdexcept>

namespace gillab
{
    class usage_error : public std::invalid_argument
    {
    public:
        using std::invalid_argument::invalid_argument;
    };
}
