#include "gil_timeline.hpp"
#include "python_helpers.hpp"

#include <algorithm>
#include <cstdint>

#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    namespace
    {
        // A loop iteration takes well over 0.1 us, so this never fills early.
        constexpr double stamps_per_second = 1e7;

        const char* recorder_source = R"PY(
import array, threading, time

def record(window_s, capacity):
    clock = time.perf_counter_ns
    stamps = [array.array("q", bytes(8 * capacity)) for _ in range(2)]
    counts = [0, 0]
    start = threading.Barrier(3)
    def stamp(k):
        buffer = stamps[k]
        start.wait()
        end = clock() + int(window_s * 1e9)
        n = 0
        while n < capacity:
            now = clock()
            buffer[n] = now
            n += 1
            if now > end:
                break
        counts[k] = n
    threads = [threading.Thread(target=stamp, args=(k,), name=f"gillab-timeline-{k}", daemon=True) for k in range(2)]
    for t in threads:
        t.start()
    start.wait()
    opened = clock()
    for t in threads:
        t.join()
    return opened, [stamps[k][:counts[k]] for k in range(2)]
)PY";


        std::vector<std::int64_t> to_vector(py::handle stamps)
        {
            py::buffer_info info = py::reinterpret_borrow<py::buffer>(stamps).request();
            const auto* first = static_cast<const std::int64_t*>(info.ptr);
            return {first, first + info.size};
        }
    }

    std::vector<gil_slice> record_gil_ownership(double window_s)
    {
        const auto capacity = static_cast<long long>(window_s * stamps_per_second) + 1000;
        py::tuple recorded = python_helpers(recorder_source)["record"](window_s, capacity);
        const auto opened = recorded[0].cast<std::int64_t>();
        py::list per_thread = recorded[1];
        std::vector<std::pair<std::int64_t, int>> stamps;
        for (int k = 0; k < 2; ++k)
        {
            for (std::int64_t t : to_vector(per_thread[k])) stamps.emplace_back(t, k);
        }
        std::sort(stamps.begin(), stamps.end());
        std::vector<gil_slice> slices;
        auto ms = [opened](std::int64_t t) { return (t - opened) * 1e-6; };
        for (std::size_t i = 0; i < stamps.size(); ++i)
        {
            if (slices.empty() || slices.back().thread != stamps[i].second)
            {
                if (!slices.empty()) slices.back().end_ms = ms(stamps[i].first);
                slices.push_back({stamps[i].second, ms(stamps[i].first), ms(stamps[i].first)});
            }
            else
            {
                slices.back().end_ms = ms(stamps[i].first);
            }
        }
        return slices;
    }
}
