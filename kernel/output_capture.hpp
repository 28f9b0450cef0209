// fd-level capture of the kernel's stdout and stderr, as ipykernel does.
//
// fds 1 and 2 become pipes, so everything that writes there reaches the
// notebook: Python threads and pools, forked, spawned and forkserver
// children (they inherit the fds), and C code. Python's sys.stdout/stderr
// write straight through to those fds, so there is one path, not two.
// A reader thread batches text (a print flood becomes a few messages, not
// thousands) and hands it to a sink; drain() empties the pipes at once.
#pragma once

#include <array>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace gillab
{
    class output_capture
    {
    public:
        // sink(stream_name, utf8_text) is called with `mutex` held; it returns
        // false while it cannot deliver (before the kernel started), and the
        // text then goes to the kernel's terminal instead.
        using sink_type = std::function<bool(const std::string&, const std::string&)>;

        output_capture(std::recursive_mutex& mutex, sink_type sink);
        ~output_capture();

        output_capture(const output_capture&) = delete;
        output_capture& operator=(const output_capture&) = delete;

        // Redirects fds 1 and 2 and starts the reader thread.
        void start();

        // Reads what the pipes hold now and emits it, from any thread.
        void drain();

        // A duplicate of the original stderr, for the kernel's own log lines.
        int log_fd() const;

        // Points fds 1 and 2 at the capture's pipes again if code closed or
        // redirected them (os.close(1), os.dup2(null, 2)): after every cell.
        void restore_descriptors();

    private:
        struct stream
        {
            std::string name;
            int target_fd = -1;  // 1 or 2
            int read_fd = -1;
            int write_fd = -1;  // the pipe's write end, kept to put target_fd back
            std::string pending;  // bytes read, not yet emitted
        };

        void reader_loop();
        bool read_available(stream& s);  // false once the pipe is closed
        void emit(stream& s, bool include_partial_utf8);

        std::recursive_mutex& m_mutex;
        sink_type m_sink;
        std::array<stream, 2> m_streams;
        int m_wake_read = -1;
        int m_wake_write = -1;
        int m_log_fd = 2;
        std::thread m_reader;
    };

    // Valid UTF-8 for the JSON encoder: invalid bytes become U+FFFD.
    std::string sanitize_utf8(const std::string& bytes);

    // How many trailing bytes of `bytes` start an incomplete UTF-8 sequence.
    std::size_t incomplete_utf8_suffix(const std::string& bytes);
}
