#include "output_capture.hpp"

#include <cerrno>
#include <chrono>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <stdexcept>
#include <system_error>
#include <unistd.h>

#include "forked_copy.hpp"

namespace gillab
{
    namespace
    {
        // Text is batched for at most this long, or up to this size.
        constexpr int batch_window_ms = 20;
        constexpr std::size_t batch_max_bytes = 256 * 1024;

        void throw_errno(const char* what)
        {
            throw std::system_error(errno, std::generic_category(), what);
        }

        void make_pipe(int fds[2])
        {
            if (pipe2(fds, O_CLOEXEC) != 0)
            {
                throw_errno("pipe2");
            }
        }

        void set_nonblocking(int fd)
        {
            int flags = fcntl(fd, F_GETFL);
            fcntl(fd, F_SETFL, flags | O_NONBLOCK);
        }

        std::size_t utf8_sequence_length(unsigned char lead)
        {
            if (lead < 0x80) return 1;
            if ((lead >> 5) == 0x6) return 2;
            if ((lead >> 4) == 0xE) return 3;
            if ((lead >> 3) == 0x1E) return 4;
            return 0;
        }
    }

    std::string sanitize_utf8(const std::string& bytes)
    {
        static const std::string replacement = "\xEF\xBF\xBD";
        std::string out;
        out.reserve(bytes.size());
        std::size_t i = 0;
        while (i < bytes.size())
        {
            const auto lead = static_cast<unsigned char>(bytes[i]);
            const std::size_t length = utf8_sequence_length(lead);
            bool valid = length != 0 && i + length <= bytes.size();
            for (std::size_t k = 1; valid && k < length; ++k)
            {
                valid = (static_cast<unsigned char>(bytes[i + k]) >> 6) == 0x2;
            }
            if (valid)
            {
                out.append(bytes, i, length);
                i += length;
            }
            else
            {
                out += replacement;
                ++i;
            }
        }
        return out;
    }

    std::size_t incomplete_utf8_suffix(const std::string& bytes)
    {
        // Look back at most 3 bytes for a lead byte whose sequence runs past the end.
        for (std::size_t back = 1; back <= 3 && back <= bytes.size(); ++back)
        {
            const auto byte = static_cast<unsigned char>(bytes[bytes.size() - back]);
            if ((byte >> 6) != 0x2)
            {
                const std::size_t length = utf8_sequence_length(byte);
                return length > back ? back : 0;
            }
        }
        return 0;
    }

    output_capture::output_capture(std::recursive_mutex& mutex, sink_type sink)
        : m_mutex(mutex)
        , m_sink(std::move(sink))
    {
        m_streams[0].name = "stdout";
        m_streams[0].target_fd = STDOUT_FILENO;
        m_streams[1].name = "stderr";
        m_streams[1].target_fd = STDERR_FILENO;
    }

    output_capture::~output_capture()
    {
        if (m_reader.joinable())
        {
            char stop = 'q';
            (void)!write(m_wake_write, &stop, 1);
            m_reader.join();
        }
    }

    void output_capture::restore_descriptors()
    {
        for (const stream& s : m_streams)
        {
            struct stat pipe_end
            {
            }, target{};
            if (s.write_fd < 0 || fstat(s.write_fd, &pipe_end) != 0)
            {
                continue;  // the capture's own end was closed: nothing to put back
            }
            const bool intact = fstat(s.target_fd, &target) == 0 && target.st_dev == pipe_end.st_dev &&
                                target.st_ino == pipe_end.st_ino;
            if (!intact)
            {
                dup2(s.write_fd, s.target_fd);
            }
        }
    }

    void output_capture::start()
    {
        m_log_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
        if (m_log_fd < 0)
        {
            throw_errno("dup stderr");
        }
        for (stream& s : m_streams)
        {
            int fds[2];
            make_pipe(fds);
            // dup2 clears O_CLOEXEC on the target: children inherit fds 1 and 2.
            if (dup2(fds[1], s.target_fd) < 0)
            {
                throw_errno("dup2");
            }
            // Moved above the low fds a cell is likely to close, kept close-on-exec.
            s.write_fd = fcntl(fds[1], F_DUPFD_CLOEXEC, 10);
            close(fds[1]);
            if (s.write_fd < 0)
            {
                throw_errno("dup pipe");
            }
            s.read_fd = fds[0];
            set_nonblocking(s.read_fd);
        }
        int wake[2];
        make_pipe(wake);
        m_wake_read = wake[0];
        m_wake_write = wake[1];
        m_reader = std::thread(&output_capture::reader_loop, this);
    }

    int output_capture::log_fd() const
    {
        return m_log_fd;
    }

    bool output_capture::read_available(stream& s)
    {
        char buffer[65536];
        while (true)
        {
            ssize_t n = read(s.read_fd, buffer, sizeof(buffer));
            if (n > 0)
            {
                s.pending.append(buffer, static_cast<std::size_t>(n));
                continue;
            }
            if (n < 0 && errno == EINTR)
            {
                continue;
            }
            return n != 0;  // 0: every writer closed; EAGAIN: nothing more now
        }
    }

    void output_capture::emit(stream& s, bool include_partial_utf8)
    {
        if (s.pending.empty())
        {
            return;
        }
        std::size_t keep = include_partial_utf8 ? 0 : incomplete_utf8_suffix(s.pending);
        std::string text = s.pending.substr(0, s.pending.size() - keep);
        s.pending.erase(0, s.pending.size() - keep);
        if (!text.empty() && !m_sink(s.name, sanitize_utf8(text)))
        {
            (void)!write(m_log_fd, text.data(), text.size());
        }
    }

    void output_capture::drain()
    {
        if (is_forked_copy()) return;  // the parent's reader owns the pipes
        std::lock_guard<std::recursive_mutex> lock(m_mutex);
        for (stream& s : m_streams)
        {
            read_available(s);
            emit(s, false);
        }
    }

    void output_capture::reader_loop()
    {
        using clock = std::chrono::steady_clock;
        bool batching = false;
        clock::time_point batch_deadline;
        while (true)
        {
            pollfd fds[3] = {{m_streams[0].read_fd, POLLIN, 0},
                             {m_streams[1].read_fd, POLLIN, 0},
                             {m_wake_read, POLLIN, 0}};
            int timeout = -1;
            if (batching)
            {
                auto left = std::chrono::duration_cast<std::chrono::milliseconds>(batch_deadline - clock::now());
                timeout = std::max<int>(0, static_cast<int>(left.count()));
            }
            int ready = poll(fds, 3, timeout);
            if (ready < 0 && errno != EINTR)
            {
                return;
            }
            if (fds[2].revents != 0)
            {
                return;
            }
            std::lock_guard<std::recursive_mutex> lock(m_mutex);
            std::size_t pending_bytes = 0;
            for (stream& s : m_streams)
            {
                read_available(s);
                pending_bytes += s.pending.size();
            }
            if (pending_bytes == 0)
            {
                batching = false;
                continue;
            }
            if (!batching)
            {
                batching = true;
                batch_deadline = clock::now() + std::chrono::milliseconds(batch_window_ms);
            }
            if (clock::now() >= batch_deadline || pending_bytes >= batch_max_bytes)
            {
                for (stream& s : m_streams)
                {
                    emit(s, false);
                }
                batching = false;
            }
        }
    }
}
