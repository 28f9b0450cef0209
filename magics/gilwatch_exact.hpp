// %%gilwatch --exact: every GIL hand-over while a cell ran, from the exact
// trace (instruments/gil_events) instead of samples. %%gilwatch hands a call
// with --exact over to measure_exact; the measuring runs in
// runners/task_gil_trace.py, this file parses and presents.
#pragma once

#include "framework/registry.hpp"

namespace gillab
{
    // --exact, in %%gilwatch's options.
    option_spec exact_option();

    // The whole %%gilwatch --exact call (or one with --python, refused without --exact): its
    // options checked, the cell traced in the kernel or the one interpreter --python names, the result.
    Result measure_exact(const magic_call& call);
}
