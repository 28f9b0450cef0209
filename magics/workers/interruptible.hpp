// Waiting without the GIL while staying interruptible: the stop button
// raises KeyboardInterrupt in the shell thread only when it runs Python's
// signal check, so native waits poll it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

namespace gillab
{
    // Waits (GIL released) until done() is true; every `poll` re-takes the
    // GIL and runs PyErr_CheckSignals(), throwing py::error_already_set on
    // KeyboardInterrupt. Call with the GIL held; done() runs without it.
    void wait_interruptibly(const std::function<bool()>& done,
                            std::chrono::milliseconds poll = std::chrono::milliseconds(20));

    // The same for threads that say when they are done: sleeps on `changed`
    // (notified under `mutex` whenever done() may have turned true) instead of
    // waking every millisecond, so the wait takes no CPU time from the
    // threads it waits for. done() runs under `mutex`.
    void wait_interruptibly(std::mutex& mutex, std::condition_variable& changed, const std::function<bool()>& done,
                            std::chrono::milliseconds poll = std::chrono::milliseconds(20));
}
