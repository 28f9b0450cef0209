#include "python_helpers.hpp"

#include <unordered_map>

#include <pybind11/eval.h>

namespace gillab
{
    py::dict& python_helpers(const char* source)
    {
        static std::unordered_map<const char*, py::dict*> namespaces;  // guarded by the GIL
        py::dict*& scope = namespaces[source];
        if (scope == nullptr)
        {
            auto* fresh = new py::dict();
            py::exec(source, *fresh);
            scope = fresh;
        }
        return *scope;
    }
}
