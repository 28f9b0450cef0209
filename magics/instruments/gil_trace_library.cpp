// The exact trace of GIL hand-overs for a child interpreter (--python): a shared library of its
// own, libgillab_gil_trace.so beside the runners, that runners/task_gil_trace.py loads with
// ctypes. The same wrappers and reading as the kernel's (gil_events, gil_trace_record); the
// GIL's addresses come from the runner, which finds them in the interpreter's own layout and
// checks them first. Plain C calls: no Python API, so one library serves every version.
#include <cstdint>
#include <string>

#include "instruments/gil_trace_record.hpp"

namespace
{
    std::string answer;  // the last call's text, valid until the next call
}

extern "C"
{
    // Starts the trace (GIL held): the GIL's `locked` and `switch_number` fields, its condition
    // variable and mutex, and the switch condition variable and mutex. Returns "" or a one-line
    // reason it cannot trace.
    __attribute__((visibility("default"))) const char* gillab_trace_start(uintptr_t locked, uintptr_t switch_number,
                                                                          uintptr_t cond, uintptr_t mutex,
                                                                          uintptr_t switch_cond, uintptr_t switch_mutex)
    {
        gillab_gil_fields fields{};
        fields.locked = reinterpret_cast<const int*>(locked);
        fields.switch_number = reinterpret_cast<const unsigned long*>(switch_number);
        fields.cond_from = cond;
        fields.cond_to = cond + 1;
        fields.mutex_from = mutex;
        fields.mutex_to = mutex + 1;
        fields.switch_cond = switch_cond;
        fields.switch_mutex = switch_mutex;
        answer = gillab::start_gil_trace(fields);
        return answer.c_str();
    }

    // Puts the interpreter's calls back (GIL held) and returns the trace as JSON
    // (gil_trace_record's shape).
    __attribute__((visibility("default"))) const char* gillab_trace_stop()
    {
        answer = gillab::gil_trace_record(gillab::stop_gil_trace()).dump();
        return answer.c_str();
    }
}
