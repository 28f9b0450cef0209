#include "workers/interruptible.hpp"

#include <thread>

#include <pybind11/pybind11.h>

#include "base/clock.hpp"

namespace gillab
{
    namespace py = pybind11;

    namespace
    {
        // The loop both waits share: wait_slice() waits (GIL released) for at
        // most one poll and says whether done; between slices, the signal check.
        void check_signals_between(const std::function<bool()>& wait_slice)
        {
            while (true)
            {
                bool finished;
                {
                    py::gil_scoped_release release;
                    finished = wait_slice();
                }
                if (PyErr_CheckSignals() != 0)
                {
                    throw py::error_already_set();
                }
                if (finished)
                {
                    return;
                }
            }
        }
    }

    void wait_interruptibly(const std::function<bool()>& done, std::chrono::milliseconds poll)
    {
        check_signals_between([&] {
            const auto deadline = monotonic::now() + poll;
            bool finished;
            while (!(finished = done()) && monotonic::now() < deadline)
            {
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            return finished;
        });
    }

    void wait_interruptibly(std::mutex& mutex, std::condition_variable& changed, const std::function<bool()>& done,
                            std::chrono::milliseconds poll)
    {
        check_signals_between([&] {
            std::unique_lock<std::mutex> lock(mutex);
            return changed.wait_for(lock, poll, done);
        });
    }
}
