// Progress for long magics. progress_line: one display, updated in place with
// update_display_data, from the shell thread (a magic that measures between its
// own calls). progress_ticker: for a magic whose cell runs on the shell thread
// meanwhile (%%gilwatch, %%heartbeat), a thread of its own shows and updates the
// line without the GIL, through the kernel's any-thread publisher.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    class progress_line
    {
    public:
        explicit progress_line(const std::string& magic);
        void update(const std::string& text);

    private:
        std::string m_magic;
        py::object m_handle;
    };

    // Publishes one IOPub message from any thread, attributed to the running cell. Set by the
    // kernel (kernel/launch.cpp); unset under %load_ext gillab in another kernel, where
    // tickers show nothing.
    using any_thread_publisher = std::function<void(const std::string& msg_type, nlohmann::json content)>;
    void set_any_thread_publisher(any_thread_publisher publish);

    class progress_ticker
    {
    public:
        // Once `after_s` have passed, shows "<magic>: <doing>, N s so far", then each second the
        // new count; destroyed, it stops and, if it showed anything, leaves "<magic>: <doing>, N s".
        progress_ticker(std::string magic, std::string doing, double after_s = 2.0);
        ~progress_ticker();
        progress_ticker(const progress_ticker&) = delete;
        progress_ticker& operator=(const progress_ticker&) = delete;

    private:
        void run();

        std::string m_magic;
        std::string m_doing;
        double m_after_s;
        std::mutex m_mutex;
        std::condition_variable m_wake;
        bool m_stop = false;
        std::thread m_thread;
    };

    // `_gillab.progress(name, doing, after_s=2.0)`: a progress_ticker as a context manager, for
    // Python code that runs long on the shell thread (the course's helpers waiting on a child).
    void bind_progress(py::module_& m);
}
