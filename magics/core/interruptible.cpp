#include "interruptible.hpp"

#include <thread>

#include <pybind11/pybind11.h>

#include "clock.hpp"

namespace gillab
{
    namespace py = pybind11;

    void wait_interruptibly(const std::function<bool()>& done, std::chrono::milliseconds poll)
    {
        while (true)
        {
            bool finished;
            {
                py::gil_scoped_release release;
                auto deadline = monotonic::now() + poll;
                while (!(finished = done()) && monotonic::now() < deadline)
                {
                    std::this_thread::sleep_for(std::chrono::milliseconds(1));
                }
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

    void wait_interruptibly(std::mutex& mutex, std::condition_variable& changed, const std::function<bool()>& done,
                            std::chrono::milliseconds poll)
    {
        while (true)
        {
            bool finished;
            {
                py::gil_scoped_release release;
                std::unique_lock<std::mutex> lock(mutex);
                finished = changed.wait_for(lock, poll, done);
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
