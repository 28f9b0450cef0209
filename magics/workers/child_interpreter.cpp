#include "workers/child_interpreter.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <set>
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pybind11/pybind11.h>
#include <pybind11_json/pybind11_json.hpp>

#include "base/clock.hpp"
#include "workers/interruptible.hpp"

extern char** environ;

namespace gillab
{
    namespace py = pybind11;

    namespace
    {
        constexpr double probe_timeout_s = 20.0;
        constexpr std::size_t max_stderr_kept = 64 * 1024;
        constexpr int result_fd_in_child = 3;
        // How child.py starts a progress line on the result pipe (the answer is one JSON object after them).
        constexpr const char* progress_prefix = "{\"progress\":";

        bool is_executable_file(const std::string& path)
        {
            struct stat st
            {};
            return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
        }

        std::string env_or(const char* name, const std::string& fallback)
        {
            const char* value = std::getenv(name);
            return value && *value ? std::string(value) : fallback;
        }

        std::vector<std::string> list_directory(const std::string& folder)
        {
            std::vector<std::string> names;
            if (DIR* dir = opendir(folder.c_str()))
            {
                while (dirent* entry = readdir(dir))
                {
                    const std::string name = entry->d_name;
                    if (name != "." && name != "..") names.push_back(name);
                }
                closedir(dir);
            }
            std::sort(names.begin(), names.end());
            return names;
        }

        std::vector<std::string> split(const std::string& text, char separator)
        {
            std::vector<std::string> parts;
            std::string part;
            for (char c : text)
            {
                if (c == separator)
                {
                    parts.push_back(part);
                    part.clear();
                }
                else
                {
                    part += c;
                }
            }
            parts.push_back(part);
            return parts;
        }

        // "3.9.18" before "3.9.2": numeric, part by part.
        bool version_less(const std::string& a, const std::string& b)
        {
            std::vector<std::string> pa = split(a, '.'), pb = split(b, '.');
            for (std::size_t i = 0; i < std::min(pa.size(), pb.size()); ++i)
            {
                const long na = std::strtol(pa[i].c_str(), nullptr, 10), nb = std::strtol(pb[i].c_str(), nullptr, 10);
                if (na != nb) return na < nb;
            }
            return pa.size() < pb.size();
        }

        std::string project_builds_folder() { return env_or("GILLAB_CACHE", "/var/cache/gillab") + "/cpython-3.13"; }
        // Debian unstable's own interpreters (tools/build-sid-pythons), run with this root as / (bubblewrap).
        std::string sid_root_folder() { return env_or("GILLAB_CACHE", "/var/cache/gillab") + "/debian-sid/root"; }
        std::string pyenv_versions_folder() { return env_or("PYENV_ROOT", env_or("HOME", "/root") + "/.pyenv") + "/versions"; }

        std::vector<std::string> path_folders() { return split(env_or("PATH", "/usr/bin:/bin"), ':'); }

        // Folders that may hold interpreters, in the order names are resolved.
        std::vector<std::string> search_folders()
        {
            std::vector<std::string> folders = path_folders();
            // Default first: the free-threaded install also links python3.13 to python3.13t.
            folders.push_back(project_builds_folder() + "/default/bin");
            folders.push_back(project_builds_folder() + "/free-threaded/bin");
            folders.push_back(sid_root_folder() + "/usr/bin");
            // Newest patch release first, so "python3.9" means the newest 3.9 pyenv has.
            std::vector<std::string> versions = list_directory(pyenv_versions_folder());
            std::sort(versions.begin(), versions.end(), [](const std::string& a, const std::string& b) { return version_less(b, a); });
            for (const std::string& version : versions) folders.push_back(pyenv_versions_folder() + "/" + version + "/bin");
            return folders;
        }

        // "3.9" -> "python3.9", "3.13t" -> "python3.13t"; names are left alone.
        std::string executable_name(const std::string& name)
        {
            return !name.empty() && std::isdigit(static_cast<unsigned char>(name[0])) ? "python" + name : name;
        }

        bool is_python_name(const std::string& name)
        {
            if (name.rfind("python", 0) != 0 || name.find("-config") != std::string::npos) return false;
            const std::string rest = name.substr(6);
            return !rest.empty() && rest.find_first_not_of("0123456789.t") == std::string::npos && std::isdigit(static_cast<unsigned char>(rest[0]));
        }

        std::string read_stderr_tail(const std::string& text)
        {
            std::string trimmed = text;
            while (!trimmed.empty() && (trimmed.back() == '\n' || trimmed.back() == ' ')) trimmed.pop_back();
            const std::size_t last_line = trimmed.rfind('\n');
            return last_line == std::string::npos ? trimmed : trimmed.substr(last_line + 1);
        }

        // A child with pipes on stdin, stderr, an optional result fd 3 and an
        // optional stdout; in its own process group, SIGINT at its default.
        class child_process
        {
        public:
            child_process(const std::vector<std::string>& argv, const std::map<std::string, std::string>& extra_env,
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
                posix_spawnattr_init(&attributes);
                sigset_t no_signals, default_signals;
                sigemptyset(&no_signals);
                sigemptyset(&default_signals);
                sigaddset(&default_signals, SIGINT);
                posix_spawnattr_setsigmask(&attributes, &no_signals);
                posix_spawnattr_setsigdefault(&attributes, &default_signals);
                posix_spawnattr_setpgroup(&attributes, 0);
                posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

                std::vector<std::string> env = child_environment(extra_env);
                std::vector<char*> argv_c, env_c;
                for (const std::string& a : argv) argv_c.push_back(const_cast<char*>(a.c_str()));
                argv_c.push_back(nullptr);
                for (const std::string& e : env) env_c.push_back(const_cast<char*>(e.c_str()));
                env_c.push_back(nullptr);

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

            ~child_process()
            {
                kill_and_reap();
                close_all();
            }

            child_process(const child_process&) = delete;
            child_process& operator=(const child_process&) = delete;

            // Feeds `input`, collects stdout/stderr/result until all close,
            // then reaps. Returns the exit status. GIL held on entry.
            // Progress lines on the result pipe go to `on_progress` (GIL held)
            // as they arrive; result_text keeps the rest, the answer.
            int exchange(const std::string& input, double timeout_s,
                         const std::function<void(const std::string&)>& on_progress = {})
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

            std::string stdout_text, stderr_text, result_text;

        private:
            pid_t m_pid = -1;

            bool has_progress_line() const
            {
                return result_text.rfind(progress_prefix, 0) == 0 && result_text.find('\n') != std::string::npos;
            }

            // Takes the complete progress lines off the front of result_text.
            void deliver_progress(const std::function<void(const std::string&)>& on_progress)
            {
                while (has_progress_line())
                {
                    const std::size_t end = result_text.find('\n');
                    const std::string line = result_text.substr(0, end);
                    result_text.erase(0, end + 1);
                    if (!on_progress) continue;
                    try
                    {
                        on_progress(nl::json::parse(line).at("progress").get<std::string>());
                    }
                    catch (const nl::json::exception&)
                    {
                        // A garbled progress line only loses that update.
                    }
                }
            }
            int m_stdin = -1, m_stdout = -1, m_stderr = -1, m_result = -1;

            static std::vector<std::string> child_environment(const std::map<std::string, std::string>& extra)
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

            void close_fd(int& fd)
            {
                if (fd >= 0) close(fd);
                fd = -1;
            }

            void close_all()
            {
                for (int* fd : {&m_stdin, &m_stdout, &m_stderr, &m_result}) close_fd(*fd);
            }

            void kill_and_reap()
            {
                if (m_pid <= 0) return;
                kill(-m_pid, SIGKILL);  // its process group: anything it started too
                kill(m_pid, SIGKILL);
                int status;
                while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {}
                m_pid = -1;
            }

            // One non-blocking round: write what the child can take, read what it has.
            void pump(const std::string& input, std::size_t& written)
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
                    int& fd = *owners[i];
                    if (&fd == &m_stdin)
                    {
                        const ssize_t w = write(fd, input.data() + written, input.size() - written);
                        if (w > 0) written += static_cast<std::size_t>(w);
                        if (w < 0 && errno != EAGAIN && errno != EINTR) written = input.size();  // the child closed stdin
                        if (written >= input.size()) close_fd(m_stdin);
                        continue;
                    }
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
        };

        // Binding the host's / or its system folders over the root's would break the root's Python
        // (a cell's temp folder under /tmp is fine: the root's /tmp is a tmpfs of its own).
        bool is_system_folder(const std::string& path)
        {
            if (path == "/" || path == "/tmp") return true;
            for (const char* top : {"/usr", "/etc", "/lib", "/lib64", "/bin", "/sbin", "/proc", "/dev", "/sys"})
            {
                const std::string prefix = top;
                if (path == prefix || path.rfind(prefix + "/", 0) == 0) return true;
            }
            return false;
        }

        // The folders a child in the root must see at their own paths: the runners, the cell's
        // folder(s) (written to: multiprocessing's temp folders go there) and the working folder.
        std::vector<std::string> sandbox_binds(const std::vector<std::string>& writable, const std::string& workdir)
        {
            std::vector<std::string> binds = {"--ro-bind", runners_directory(), runners_directory()};
            for (const std::string& folder : writable)
            {
                if (!is_system_folder(folder)) binds.insert(binds.end(), {"--bind", folder, folder});
            }
            const std::string cwd = py::module_::import("os").attr("getcwd")().cast<std::string>();
            if (!is_system_folder(cwd)) binds.insert(binds.end(), {"--ro-bind", cwd, cwd, "--chdir", cwd});
            if (!workdir.empty() && !is_system_folder(workdir)) binds.insert(binds.end(), {"--chdir", workdir});  // bwrap keeps the last
            return binds;
        }

        std::string describe_exit(int status)
        {
            if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
            return "exit status " + std::to_string(WEXITSTATUS(status));
        }
    }

    std::string interpreter_info::build_text() const
    {
        const nl::json build = raw.value("build", nl::json::object());
        if (!build.is_object() || !build.contains("pgo")) return "build unknown";
        const bool pgo = build.value("pgo", false), lto = build.value("lto", false);
        std::string text = pgo && lto ? "PGO+LTO" : pgo ? "PGO"
                                                : lto   ? "LTO"
                                                        : "no PGO/LTO";
        if (build.value("debug", false)) text += ", debug";
        return text;
    }

    std::string interpreter_info::label() const
    {
        const std::string vendor = raw.value("build", nl::json::object()).value("vendor", "");
        std::string origin = interpreter_origin(executable);
        if (vendor == "Debian") origin = runs_in_sid_root(executable) ? "Debian unstable" : "Debian";
        else if (origin == "PATH" || origin.empty()) origin.clear();
        std::string text = version + (free_threaded_build ? "t" : "") + " (" + (origin.empty() ? "" : origin + ", ") + build_text();
        if (free_threaded_build) text += gil_enabled ? ", GIL on" : ", GIL off";
        return text + ")";
    }

    std::string runners_directory()
    {
        py::object gillab = py::module_::import("gillab");
        return py::module_::import("os.path").attr("dirname")(gillab.attr("__file__")).cast<std::string>() + "/runners";
    }

    std::vector<std::string> discover_interpreters()
    {
        std::vector<std::string> found;
        std::vector<std::pair<dev_t, ino_t>> seen;  // symlinks and hard links alike
        for (const std::string& folder : search_folders())
        {
            // The most specific name of a file first: python3.9 rather than python3.
            std::vector<std::string> names = list_directory(folder);
            std::stable_sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
            for (const std::string& name : names)
            {
                const std::string path = folder + "/" + name;
                if (!is_python_name(name) || !is_executable_file(path)) continue;
                struct stat st
                {};
                if (stat(path.c_str(), &st) != 0) continue;
                const std::pair<dev_t, ino_t> file{st.st_dev, st.st_ino};
                if (std::find(seen.begin(), seen.end(), file) != seen.end()) continue;
                seen.push_back(file);
                found.push_back(path);
            }
        }
        return found;
    }

    std::vector<std::string> interpreter_command(const std::string& executable, const std::vector<std::string>& writable,
                                                 const std::string& workdir)
    {
        if (!runs_in_sid_root(executable)) return {executable};
        std::vector<std::string> command = {"bwrap", "--bind", sid_root_folder(), "/", "--proc", "/proc", "--dev", "/dev",
                                            "--tmpfs", "/tmp", "--die-with-parent"};
        for (const std::string& bind : sandbox_binds(writable, workdir)) command.push_back(bind);
        command.insert(command.end(), {"--", executable.substr(sid_root_folder().size())});
        return command;
    }

    bool runs_in_sid_root(const std::string& executable)
    {
        return executable.rfind(sid_root_folder() + "/", 0) == 0;
    }

    void add_interpreter_notes(std::vector<std::string>& notes, const std::vector<measurement_target>& targets)
    {
        std::set<std::string> builds;
        std::string build_list;
        for (const measurement_target& target : targets)
        {
            const interpreter_info info = target.is_kernel ? kernel_interpreter_info() : target.info;
            if (builds.insert(info.build_text()).second) build_list += (build_list.empty() ? "" : "; ") + info.build_text();
            if (target.is_kernel) continue;
            notes.push_back(info.label() + ": " + info.executable +
                            (target.requested != info.executable ? " (asked for as " + target.requested + ")" : ""));
            if (runs_in_sid_root(info.executable))
                notes.push_back(info.label() + ": Debian unstable's own " + info.version +
                                ", run in its root file system (" + sid_root_folder() +
                                ", make sid-pythons) under bubblewrap: same kernel and CPUs, its own libraries.");
        }
        if (builds.size() > 1)
            notes.push_back("builds differ (" + build_list + "): between interpreters compiled differently, a "
                                                             "difference in speed is partly the compiler's, not only the version's; only builds "
                                                             "alike compare versions (%gilinfo --interpreters shows how each was built).");
    }

    std::string interpreter_origin(const std::string& executable)
    {
        if (runs_in_sid_root(executable)) return "Debian unstable root (bwrap)";
        if (executable.rfind(project_builds_folder() + "/", 0) == 0) return "project build";
        if (executable.rfind(pyenv_versions_folder() + "/", 0) == 0) return "pyenv";
        return "PATH";
    }

    interpreter_info kernel_interpreter_info()
    {
        interpreter_info info;
        info.raw = py::module_::import("gillab.runners.interpreter").attr("describe")();
        info.executable = info.raw["executable"];
        info.version = info.raw["version"];
        info.free_threaded_build = info.raw["free_threaded_build"];
        info.gil_enabled = info.raw["gil_enabled"];
        return info;
    }

    interpreter_info probe_interpreter(const std::string& executable, const std::map<std::string, std::string>& env)
    {
        std::vector<std::string> command = interpreter_command(executable);
        command.insert(command.end(), {"-s", runners_directory() + "/interpreter.py"});
        child_process child(command, env, true, false);
        int status;
        try
        {
            status = child.exchange("", probe_timeout_s);
        }
        catch (const py::error_already_set&)
        {
            throw;  // KeyboardInterrupt
        }
        catch (const std::runtime_error& error)
        {
            throw usage_error(executable + " " + error.what() + " to the interpreter probe");
        }
        interpreter_info info;
        info.executable = executable;
        try
        {
            info.raw = nl::json::parse(child.stdout_text);
            info.version = info.raw.at("version").get<std::string>();
            info.free_threaded_build = info.raw.at("free_threaded_build").get<bool>();
            info.gil_enabled = info.raw.at("gil_enabled").get<bool>();
        }
        catch (const nl::json::exception&)
        {
            const std::string why = read_stderr_tail(child.stderr_text);
            throw usage_error(executable + " did not answer as a Python (" + describe_exit(status) + ")" +
                              (why.empty() ? "" : ": " + why));
        }
        return info;
    }

    std::vector<measurement_target> resolve_interpreters(const std::string& list, const std::string& magic)
    {
        std::vector<measurement_target> targets;
        if (list.empty())
        {
            targets.push_back({true, "kernel", {}});
            return targets;
        }
        for (const std::string& requested : split(list, ','))
        {
            if (requested.empty()) throw usage_error("%" + magic + ": --python has an empty name in '" + list + "'");
            if (requested == "kernel")
            {
                targets.push_back({true, requested, {}});
                continue;
            }
            std::string executable;
            if (requested.find('/') != std::string::npos)
            {
                if (!is_executable_file(requested))
                    throw usage_error("%" + magic + ": --python " + requested + ": no executable file there");
                executable = requested;
            }
            else
            {
                const std::string name = executable_name(requested);
                // A full version ("3.9.18") names a pyenv folder.
                const std::string by_version = pyenv_versions_folder() + "/" + requested + "/bin/python3";
                if (std::count(requested.begin(), requested.end(), '.') == 2 && is_executable_file(by_version))
                {
                    executable = by_version;
                }
                for (const std::string& folder : search_folders())
                {
                    if (!executable.empty()) break;
                    if (is_executable_file(folder + "/" + name)) executable = folder + "/" + name;
                }
                if (executable.empty())
                {
                    throw usage_error("%" + magic + ": --python " + requested + ": no " + name + " on PATH, in the project's builds (" +
                                      project_builds_folder() + ") or in pyenv (" + pyenv_versions_folder() +
                                      "); give a path, or see %gilinfo --interpreters");
                }
            }
            interpreter_info info;
            try
            {
                info = probe_interpreter(executable);
            }
            catch (const usage_error& error)
            {
                throw usage_error("%" + magic + ": --python " + requested + ": " + error.what());
            }
            const nl::json& v = info.raw.value("version_info", nl::json::array());
            if (info.raw.value("implementation", "") != "CPython" || v.size() < 2 || v[0] != 3 || v[1].get<int>() < 8)
            {
                throw usage_error("%" + magic + ": --python " + requested + " is " + info.raw.value("implementation", "?") + " " +
                                  info.version + "; the runners need CPython 3.8 or newer");
            }
            targets.push_back({false, requested, info});
        }
        return targets;
    }

    nl::json run_in_child(const measurement_target& target, const nl::json& request, const std::string& magic,
                          const std::function<void(const std::string&)>& on_progress)
    {
        const std::string dir = runners_directory();
        std::vector<std::string> writable;
        if (request.contains("folder") && request["folder"].is_string()) writable.push_back(request["folder"]);
        std::vector<std::string> command = interpreter_command(target.info.executable, writable);
        command.insert(command.end(), {"-s", dir + "/child.py", std::to_string(result_fd_in_child)});
        child_process child(command, {}, false, true);
        nl::json sent = request;
        sent["progress"] = static_cast<bool>(on_progress);  // else the child sends the answer alone
        const int status = child.exchange(sent.dump(), 0, on_progress);
        const std::string where = "%" + magic + " under " + target.requested + " (" + target.info.executable + ")";
        nl::json answer;
        try
        {
            answer = nl::json::parse(child.result_text);
        }
        catch (const nl::json::exception&)
        {
            const std::string why = read_stderr_tail(child.stderr_text);
            throw std::runtime_error(where + ": the child ended without an answer (" + describe_exit(status) + ")" +
                                     (why.empty() ? "" : ": " + why));
        }
        if (!answer.value("ok", false))
        {
            const std::string error = answer.value("error", "unknown error");
            if (answer.value("kind", "") == "usage") throw usage_error("%" + magic + ": " + error);
            throw std::runtime_error(where + ": " + error + "\n" + answer.value("traceback", ""));
        }
        return answer["result"];
    }
}
