#include "workers/child_process.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <stdexcept>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <pybind11/pybind11.h>

#include "base/clock.hpp"
#include "base/usage_error.hpp"
#include "workers/interruptible.hpp"

extern char** environ;

namespace gillab
{
    namespace py = pybind11;
    namespace nl = nlohmann;

    namespace
    {
        constexpr std::size_t max_stderr_kept = 64 * 1024;
        std::vector<std::string> child_environment(const std::map<std::string, std::string>& extra)
        {
            // The kernel's own Python settings must not leak into another interpreter.
            static const std::vector<std::string> dropped = {"PYTHONHOME=", "PYTHONPATH=", "PYTHONSTARTUP=",
                                                             "PYTHONEXECUTABLE=", "PYTHON_GIL="};
            std::vector<std::string> env;
            for (char** e = environ; *e; ++e)
            {
                const std::string entry = *e;
                bool drop = std::any_of(dropped.begin(), dropped.end(), [&](const std::string& p) { return entry.rfind(p, 0) == 0; });
                if (!drop) env.push_back(entry);
            }
            for (const auto& [name, value] : extra) env.push_back(name + "=" + value);
            return env;
        }

        std::vector<char*> c_strings(const std::vector<std::string>& strings)
        {
            std::vector<char*> pointers;
            for (const std::string& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
            pointers.push_back(nullptr);
            return pointers;
        }

        // Its own process group (an interrupt kills all it started), no blocked signals, SIGINT at its default.
        void init_attributes(posix_spawnattr_t& attributes)
        {
            posix_spawnattr_init(&attributes);
            sigset_t no_signals, default_signals;
            sigemptyset(&no_signals);
            sigemptyset(&default_signals);
            sigaddset(&default_signals, SIGINT);
            posix_spawnattr_setsigmask(&attributes, &no_signals);
            posix_spawnattr_setsigdefault(&attributes, &default_signals);
            posix_spawnattr_setpgroup(&attributes, 0);
            posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
        }
    }

    std::string runners_directory() { return GILLAB_RUNNERS_DIR; }

    std::string describe_exit(int status)
    {
        if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
        return "exit status " + std::to_string(WEXITSTATUS(status));
    }

    std::string last_line(const std::string& text)
    {
        std::string trimmed = text;
        while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ')) trimmed.pop_back();
        const std::size_t last = trimmed.rfind('\n');
        return last == std::string::npos ? trimmed : trimmed.substr(last + 1);
    }

    child_process::child_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& extra_env,
                                 bool capture_stdout, bool result_pipe)
    {
        int in[2], err[2], out[2] = {-1, -1}, result[2] = {-1, -1};
        if (pipe2(in, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
            (capture_stdout && pipe2(out, O_CLOEXEC) != 0) || (result_pipe && pipe2(result, O_CLOEXEC) != 0))
        {
            throw std::runtime_error("cannot create pipes for a child interpreter: " + std::string(std::strerror(errno)));
        }
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, in[0], 0);
        posix_spawn_file_actions_adddup2(&actions, err[1], 2);
        if (capture_stdout) posix_spawn_file_actions_adddup2(&actions, out[1], 1);
        if (result_pipe) posix_spawn_file_actions_adddup2(&actions, result[1], result_fd_in_child);
        posix_spawnattr_t attributes;
        init_attributes(attributes);

        const std::vector<std::string> env = child_environment(extra_env);
        std::vector<char*> argv_c = c_strings(argv), env_c = c_strings(env);
        const int failed = posix_spawnp(&m_pid, argv[0].c_str(), &actions, &attributes, argv_c.data(), env_c.data());
        posix_spawn_file_actions_destroy(&actions);
        posix_spawnattr_destroy(&attributes);
        for (int fd : {in[0], err[1], out[1], result[1]})
            if (fd >= 0) close(fd);
        m_stdin = in[1];
        m_stderr = err[0];
        m_stdout = out[0];
        m_result = result[0];
        if (failed != 0)
        {
            m_pid = -1;
            close_all();
            throw usage_error("cannot start " + argv[0] + ": " + std::strerror(failed));
        }
        fcntl(m_stdin, F_SETFL, O_NONBLOCK);
    }

    child_process::~child_process()
    {
        kill_and_reap();
        close_all();
    }

    int child_process::exchange(const std::string& input, double timeout_s, const std::function<void(const std::string&)>& on_progress)
    {
        std::size_t written = 0;
        if (input.empty()) close_fd(m_stdin);
        const auto deadline = monotonic::now() + std::chrono::duration_cast<monotonic::duration>(
                                                     std::chrono::duration<double>(timeout_s));
        bool timed_out = false, finished = false;
        try
        {
            while (!finished && !timed_out)
            {
                wait_interruptibly([&] {
                    if (timeout_s > 0 && monotonic::now() > deadline)
                    {
                        timed_out = true;
                        return true;
                    }
                    pump(input, written);
                    finished = m_stdout < 0 && m_stderr < 0 && m_result < 0;
                    return finished || (on_progress && has_progress_line());
                });
                deliver_progress(on_progress);
            }
        }
        catch (...)
        {
            kill_and_reap();
            throw;
        }
        if (timed_out)
        {
            kill_and_reap();
            throw std::runtime_error("did not answer within " + std::to_string(static_cast<int>(timeout_s)) + " s");
        }
        int status = 0;
        {
            py::gil_scoped_release release;
            while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {}
        }
        m_pid = -1;
        return status;
    }

    // child.py's protocol: every line that ends before the answer (one JSON object, no newline) is progress.
    bool child_process::has_progress_line() const
    {
        return result_text.find('\n') != std::string::npos;
    }

    // Takes the complete progress lines off the front of result_text.
    void child_process::deliver_progress(const std::function<void(const std::string&)>& on_progress)
    {
        while (has_progress_line())
        {
            const std::size_t end = result_text.find('\n');
            const std::string line = result_text.substr(0, end);
            result_text.erase(0, end + 1);
            if (!on_progress) continue;
            try
            {
                on_progress(nl::json::parse(line).get<std::string>());
            }
            catch (const nl::json::exception&)
            {
                // A garbled progress line only loses that update.
            }
        }
    }

    void child_process::close_fd(int& fd)
    {
        if (fd >= 0) close(fd);
        fd = -1;
    }

    void child_process::close_all()
    {
        for (int* fd : {&m_stdin, &m_stdout, &m_stderr, &m_result}) close_fd(*fd);
    }

    void child_process::kill_and_reap()
    {
        if (m_pid <= 0) return;
        kill(-m_pid, SIGKILL);  // its process group: anything it started too
        kill(m_pid, SIGKILL);
        int status;
        while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {}
        m_pid = -1;
    }

    // One non-blocking round: write what the child can take, read what it has.
    void child_process::pump(const std::string& input, std::size_t& written)
    {
        pollfd fds[4];
        int* owners[4];
        int n = 0;
        if (m_stdin >= 0)
        {
            fds[n] = {m_stdin, POLLOUT, 0};
            owners[n++] = &m_stdin;
        }
        for (int* fd : {&m_stdout, &m_stderr, &m_result})
        {
            if (*fd >= 0)
            {
                fds[n] = {*fd, POLLIN, 0};
                owners[n++] = fd;
            }
        }
        if (n == 0 || poll(fds, n, 5) <= 0) return;
        for (int i = 0; i < n; ++i)
        {
            if (fds[i].revents == 0) continue;
            if (owners[i] != &m_stdin)
            {
                read_into(*owners[i]);
                continue;
            }
            const ssize_t w = write(m_stdin, input.data() + written, input.size() - written);
            if (w > 0) written += static_cast<std::size_t>(w);
            if (w < 0 && errno != EAGAIN && errno != EINTR) written = input.size();  // the child closed stdin
            if (written >= input.size()) close_fd(m_stdin);
        }
    }

    void child_process::read_into(int& fd)
    {
        char buffer[65536];
        const ssize_t r = read(fd, buffer, sizeof buffer);
        if (r > 0)
        {
            std::string& sink = &fd == &m_stdout ? stdout_text : &fd == &m_stderr ? stderr_text
                                                                                  : result_text;
            sink.append(buffer, static_cast<std::size_t>(r));
            if (&fd == &m_stderr && sink.size() > max_stderr_kept) sink.erase(0, sink.size() - max_stderr_kept);
        }
        else if (r == 0 || (errno != EAGAIN && errno != EINTR))
        {
            close_fd(fd);
        }
    }
}
