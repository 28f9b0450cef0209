#include "workers/interpreters.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

#include <pybind11/pybind11.h>
#include <pybind11_json/pybind11_json.hpp>

#include "base/usage_error.hpp"
#include "workers/child_process.hpp"
#include "workers/sid_root.hpp"

namespace gillab
{
    namespace py = pybind11;
    namespace fs = std::filesystem;

    namespace
    {
        constexpr double probe_timeout_s = 20.0;

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

        std::vector<std::string> split(const std::string& text, char separator)
        {
            std::vector<std::string> parts(1);
            for (char c : text)
            {
                if (c == separator) parts.emplace_back();
                else parts.back() += c;
            }
            return parts;
        }

        // Sorted names in `folder` (none if it is missing or unreadable).
        std::vector<std::string> list_directory(const std::string& folder)
        {
            std::vector<std::string> names;
            std::error_code error;
            for (const fs::directory_entry& entry : fs::directory_iterator(folder, error)) names.push_back(entry.path().filename());
            std::sort(names.begin(), names.end());
            return names;
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
        std::string pyenv_versions_folder() { return env_or("PYENV_ROOT", env_or("HOME", "/root") + "/.pyenv") + "/versions"; }

        // Folders that may hold interpreters, in the order names are resolved.
        std::vector<std::string> search_folders()
        {
            std::vector<std::string> folders = split(env_or("PATH", "/usr/bin:/bin"), ':');
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

        interpreter_info described(const std::string& executable, nl::json raw)
        {
            interpreter_info info;
            info.executable = executable;
            info.found = origin_of(executable);
            info.version = raw.at("version").get<std::string>();
            info.free_threaded_build = raw.at("free_threaded_build").get<bool>();
            info.gil_enabled = raw.at("gil_enabled").get<bool>();
            info.raw = std::move(raw);
            return info;
        }

        // runners/interpreter.py in a child of `executable`, its JSON read from stdout.
        interpreter_info run_probe(const std::string& executable, const probe_env& env)
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
            try
            {
                return described(executable, nl::json::parse(child.stdout_text));
            }
            catch (const nl::json::exception&)
            {
                const std::string why = last_line(child.stderr_text);
                throw usage_error(executable + " did not answer as a Python (" + describe_exit(status) + ")" +
                                  (why.empty() ? "" : ": " + why));
            }
        }

        probe_cache& kernel_probes()
        {
            static probe_cache probes;
            return probes;
        }

        // A path, or a name searched for; throws usage_error when there is no such executable.
        std::string locate(const std::string& requested, const std::string& magic)
        {
            if (requested.find('/') != std::string::npos)
            {
                if (!is_executable_file(requested))
                    throw usage_error("%" + magic + ": --python " + requested + ": no executable file there");
                return requested;
            }
            const std::string executable = find_interpreter(requested);
            if (executable.empty())
            {
                throw usage_error("%" + magic + ": --python " + requested + ": no " + executable_name(requested) +
                                  " on PATH, in the project's builds (" + project_builds_folder() + ") or in pyenv (" +
                                  pyenv_versions_folder() + "); give a path, or see %gilinfo --interpreters");
            }
            return executable;
        }

        // What `executable` is, checked to be a CPython the runners run on.
        interpreter_info usable(const std::string& requested, const std::string& executable, const std::string& magic,
                                const probe_env& env)
        {
            interpreter_info info;
            try
            {
                info = probe_interpreter(executable, env);
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
            if (!env.empty() && !info.free_threaded_build)
                throw usage_error("%" + magic + ": --python " + requested + ": " + info.version +
                                  " is not a free-threaded build; PYTHON_GIL goes with one (3.13t), whose GIL it turns on or off");
            return info;
        }

        // "3.13t:PYTHON_GIL=1" -> ("3.13t", {PYTHON_GIL: 1}); a name without the suffix as it is.
        std::pair<std::string, probe_env> name_and_env(const std::string& requested, const std::string& magic)
        {
            const std::string::size_type colon = requested.rfind(":PYTHON_GIL=");
            if (colon == std::string::npos) return {requested, {}};
            const std::string value = requested.substr(colon + 12);
            if (value != "0" && value != "1" && value != "")
                throw usage_error("%" + magic + ": --python " + requested + ": PYTHON_GIL takes 1 (GIL on) or 0 (off)");
            if (value.empty() || colon == 0)
                throw usage_error("%" + magic + ": --python " + requested + ": write NAME:PYTHON_GIL=1, e.g. 3.13t:PYTHON_GIL=1");
            return {requested.substr(0, colon), {{"PYTHON_GIL", value}}};
        }
    }

    origin origin_of(const std::string& executable)
    {
        if (runs_in_sid_root(executable)) return origin::sid_root;
        if (executable.rfind(project_builds_folder() + "/", 0) == 0) return origin::project_build;
        if (executable.rfind(pyenv_versions_folder() + "/", 0) == 0) return origin::pyenv;
        return origin::path;
    }

    std::string origin_key(origin where)
    {
        switch (where)
        {
            case origin::project_build: return "project_build";
            case origin::sid_root: return "sid_root";
            case origin::pyenv: return "pyenv";
            case origin::path: break;
        }
        return "path";
    }

    std::string found_in_text(origin where)
    {
        switch (where)
        {
            case origin::project_build: return "project build";
            case origin::sid_root: return "Debian unstable root (bwrap)";
            case origin::pyenv: return "pyenv";
            case origin::path: break;
        }
        return "PATH";
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
        std::string where = found == origin::path ? "" : found_in_text(found);
        if (vendor == "Debian") where = found == origin::sid_root ? "Debian unstable" : "Debian";
        std::string text = version + (free_threaded_build ? "t" : "") + " (" + (where.empty() ? "" : where + ", ") + build_text();
        if (free_threaded_build) text += gil_enabled ? ", GIL on" : ", GIL off";
        return text + ")";
    }

    std::string find_interpreter(const std::string& requested)
    {
        // A full version ("3.9.18") names a pyenv folder.
        const std::string by_version = pyenv_versions_folder() + "/" + requested + "/bin/python3";
        if (std::count(requested.begin(), requested.end(), '.') == 2 && is_executable_file(by_version)) return by_version;
        const std::string name = executable_name(requested);
        for (const std::string& folder : search_folders())
        {
            if (is_executable_file(folder + "/" + name)) return folder + "/" + name;
        }
        return "";
    }

    std::vector<std::string> discover_interpreters()
    {
        std::vector<std::string> found;
        std::set<std::pair<dev_t, ino_t>> seen;  // symlinks and hard links alike
        for (const std::string& folder : search_folders())
        {
            // The most specific name of a file first: python3.9 rather than python3.
            std::vector<std::string> names = list_directory(folder);
            std::stable_sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
            for (const std::string& name : names)
            {
                const std::string path = folder + "/" + name;
                struct stat st
                {};
                if (!is_python_name(name) || !is_executable_file(path) || stat(path.c_str(), &st) != 0) continue;
                if (seen.insert({st.st_dev, st.st_ino}).second) found.push_back(path);
            }
        }
        return found;
    }

    std::vector<measurement_target> resolve_interpreters(const std::string& list, const std::string& magic)
    {
        if (list.empty()) return {{true, "kernel", {}}};
        std::vector<measurement_target> targets;
        for (const std::string& requested : split(list, ','))
        {
            if (requested.empty()) throw usage_error("%" + magic + ": --python has an empty name in '" + list + "'");
            const auto [name, env] = name_and_env(requested, magic);
            if (name == "kernel" && !env.empty())
                throw usage_error("%" + magic + ": --python " + requested + ": the kernel's own GIL cannot be switched; name a free-threaded build, e.g. 3.13t:PYTHON_GIL=1");
            if (name == "kernel") targets.push_back({true, requested, {}});
            else targets.push_back({false, requested, usable(requested, locate(name, magic), magic, env), env});
        }
        return targets;
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
            if (info.found == origin::sid_root)
                notes.push_back(info.label() + ": Debian unstable's own " + info.version +
                                ", run in its root file system (" + sid_root_folder() +
                                ", make sid-pythons) under bubblewrap: same kernel and CPUs, its own libraries.");
        }
        if (builds.size() > 1)
            notes.push_back("builds differ (" + build_list + "): between interpreters compiled differently, a "
                                                             "difference in speed is partly the compiler's, not only the version's; only builds "
                                                             "alike compare versions (%gilinfo --interpreters shows how each was built).");
    }

    namespace
    {
        std::function<nl::json()>& kernel_describer()
        {
            static std::function<nl::json()> describe;
            return describe;
        }
    }

    void set_kernel_describer(std::function<nl::json()> describe)
    {
        kernel_describer() = std::move(describe);
    }

    interpreter_info kernel_interpreter_info()
    {
        if (!kernel_describer()) throw std::logic_error("the kernel's interpreter is described only once the _gillab module is bound");
        nl::json raw = kernel_describer()();
        const std::string executable = raw["executable"];
        return described(executable, std::move(raw));
    }

    bool probe_cache::file_identity::operator==(const file_identity& other) const
    {
        return device == other.device && inode == other.inode && size == other.size && modified_ns == other.modified_ns;
    }

    std::optional<probe_cache::file_identity> probe_cache::identify(const std::string& executable)
    {
        struct stat st
        {};
        if (stat(executable.c_str(), &st) != 0) return std::nullopt;
        return file_identity{st.st_dev, st.st_ino, static_cast<std::int64_t>(st.st_size),
                             static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
    }

    interpreter_info probe_cache::get(const std::string& executable, const probe_env& env, const probe_function& probe)
    {
        const std::optional<file_identity> file = identify(executable);
        const auto key = std::make_pair(executable, env);
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            const auto kept = m_answers.find(key);
            if (file && kept != m_answers.end() && kept->second.first == *file) return kept->second.second;
        }
        interpreter_info info = probe(executable, env);
        if (file)
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_answers[key] = {*file, info};
        }
        return info;
    }

    interpreter_info probe_interpreter(const std::string& executable, const probe_env& env)
    {
        return kernel_probes().get(executable, env, run_probe);
    }
}
