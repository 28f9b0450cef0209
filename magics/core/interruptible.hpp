// Waiting without the GIL while staying interruptible: the stop button
// raises KeyboardInterrupt in the shell thread only when it runs Python's
// signal check, so native waits poll it.
#pragma once

#include <chrono>
#include <functional>

namespace gillab
{
    // Waits (GIL released) until done() is true; every `poll` re-takes the
    // GIL and runs PyErr_CheckSignals(), throwing py::error_already_set on
    // KeyboardInterrupt. Call with the GIL held; done() runs without it.
    void wait_interruptibly(const std::function<bool()>& done,
                            std::chrono::milliseconds poll = std::chrono::milliseconds(20));
}
