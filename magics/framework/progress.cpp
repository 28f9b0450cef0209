#include "framework/progress.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>

#include <unistd.h>

#include "base/clock.hpp"

using namespace pybind11::literals;

namespace gillab
{
    namespace
    {
        py::dict bundle(const std::string& magic, const std::string& text)
        {
            py::dict data;
            data["text/plain"] = magic + ": " + text;
            return data;
        }

        any_thread_publisher& publisher()
        {
            static any_thread_publisher publish;
            return publish;
        }

        std::string new_display_id()
        {
            static std::atomic<unsigned> counter{0};
            return "gillab-progress-" + std::to_string(getpid()) + "-" + std::to_string(++counter);
        }

        std::string seconds_text(double s)
        {
            char text[32];
            std::snprintf(text, sizeof text, "%.0f s", std::floor(s));
            return text;
        }
    }

    progress_line::progress_line(const std::string& magic)
        : m_magic(magic)
    {
        py::module_ display = py::module_::import("IPython.display");
        m_handle = display.attr("display")(bundle(m_magic, "starting"), "raw"_a = true, "display_id"_a = true);
    }

    void progress_line::update(const std::string& text)
    {
        if (!m_handle.is_none())
        {
            m_handle.attr("update")(bundle(m_magic, text), "raw"_a = true);
        }
    }

    void set_any_thread_publisher(any_thread_publisher publish)
    {
        publisher() = std::move(publish);
    }

    progress_ticker::progress_ticker(std::string magic, std::string doing, double after_s)
        : m_magic(std::move(magic))
        , m_doing(std::move(doing))
        , m_after_s(after_s)
    {
        if (publisher()) m_thread = std::thread([this] { run(); });
    }

    progress_ticker::~progress_ticker()
    {
        if (!m_thread.joinable()) return;
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stop = true;
        }
        m_wake.notify_all();
        m_thread.join();  // it never takes the GIL, so the caller may hold it
    }

    void progress_ticker::run()
    {
        const auto started = monotonic::now();
        const std::string id = new_display_id();
        auto message = [&](const std::string& text) {
            return nlohmann::json{{"data", {{"text/plain", m_magic + ": " + text}}},
                                  {"metadata", nlohmann::json::object()},
                                  {"transient", {{"display_id", id}}}};
        };
        bool shown = false;
        auto next = started + std::chrono::duration_cast<monotonic::duration>(std::chrono::duration<double>(m_after_s));
        std::unique_lock<std::mutex> lock(m_mutex);
        while (!m_wake.wait_until(lock, next, [this] { return m_stop; }))
        {
            lock.unlock();  // the destructor may wait for the lock while the publish waits for IOPub
            const std::string text = m_doing + ", " + seconds_text(seconds_between(started, monotonic::now())) + " so far";
            publisher()(shown ? "update_display_data" : "display_data", message(text));
            shown = true;
            next += std::chrono::seconds(1);
            lock.lock();
        }
        lock.unlock();
        if (shown) publisher()("update_display_data", message(m_doing + ", " + seconds_text(seconds_between(started, monotonic::now()))));
    }

    namespace
    {
        struct python_ticker
        {
            std::optional<progress_ticker> ticker;
        };
    }

    void bind_progress(py::module_& m)
    {
        py::class_<python_ticker>(m, "progress",
                                  "with progress(name, doing): shows 'name: doing, N s so far' once the block has run "
                                  "after_s, updated each second, from a thread of its own")
            .def(py::init([](const std::string& name, const std::string& doing, double after_s) {
                     auto made = std::make_unique<python_ticker>();
                     made->ticker.emplace(name, doing, after_s);
                     return made;
                 }),
                 "name"_a, "doing"_a, "after_s"_a = 2.0)
            .def(
                "__enter__", [](python_ticker& t) -> python_ticker& { return t; }, py::return_value_policy::reference)
            .def("__exit__", [](python_ticker& t, const py::args&) { t.ticker.reset(); return false; });
    }
}
