// A child process of the kernel and the pipes it answers on: posix_spawn, a poll pump, the progress
// lines a runner sends before its answer, the timeout, the interrupt, kill and reap.
//
// Native on purpose, not the runner's subprocess: the wait holds no GIL and ends at the kernel's
// interrupt at once (workers/interruptible), progress lines come back as they arrive, and the
// child's own output goes through the kernel's native capture like any other.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <sys/types.h>

namespace gillab
{
    // The folder holding the runners (child.py, interpreter.py, the task modules), where the build
    // installed them; known without asking Python.
    std::string runners_directory();

    // The descriptor a child writes its answer (and progress lines before it) on: child.py's argument.
    constexpr int result_fd_in_child = 3;

    // "exit status 1", "killed by signal 9".
    std::string describe_exit(int status);

    // The last line of a child's stderr: what went wrong, in its own words.
    std::string last_line(const std::string& text);

    // A child with pipes on stdin, stderr, an optional result fd 3 and an optional stdout; in its
    // own process group, SIGINT at its default, the kernel's own Python settings left out of its
    // environment. Killed and reaped when it goes out of scope.
    class child_process
    {
    public:
        // Throws usage_error when `argv[0]` cannot be started, std::runtime_error without pipes.
        child_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& extra_env,
                      bool capture_stdout, bool result_pipe);
        ~child_process();
        child_process(const child_process&) = delete;
        child_process& operator=(const child_process&) = delete;

        // Feeds `input`, collects stdout/stderr/result until all close, then reaps. Returns the exit
        // status. GIL held on entry; interruptible (KeyboardInterrupt kills and reaps the child).
        // Progress lines on the result pipe go to `on_progress` (GIL held) as they arrive;
        // result_text keeps the rest, the answer. Throws std::runtime_error after `timeout_s` (> 0).
        int exchange(const std::string& input, double timeout_s, const std::function<void(const std::string&)>& on_progress = {});

        std::string stdout_text, stderr_text, result_text;

    private:
        pid_t m_pid = -1;
        int m_stdin = -1, m_stdout = -1, m_stderr = -1, m_result = -1;

        bool has_progress_line() const;
        void deliver_progress(const std::function<void(const std::string&)>& on_progress);
        void close_fd(int& fd);
        void close_all();
        void kill_and_reap();
        void pump(const std::string& input, std::size_t& written);
        void read_into(int& fd);
    };
}
