// Which CPythons there are and what each one is: where a name given to `--python` leads (PATH, the
// project's 3.13 / 3.13t builds in $GILLAB_CACHE, Debian unstable's 3.14 / 3.15 in its root, pyenv's
// versions), where each was found (an origin: data, written into %gilinfo's entries), what the
// interpreter says about itself (runners/interpreter.py, run in a child, its answer kept for the
// kernel's life per executable) and the label a row carries ("3.13.5t (project build, no PGO/LTO,
// GIL off)"). Nothing here calls into Python but kernel_interpreter_info, the kernel's own.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

#include <nlohmann/json.hpp>

#include "base/usage_error.hpp"

namespace gillab
{
    namespace nl = nlohmann;

    // Where an interpreter was found, in the order names are resolved (PATH first).
    enum class origin
    {
        path,
        project_build,  // $GILLAB_CACHE/cpython-3.13 (make free-threaded-python)
        sid_root,  // $GILLAB_CACHE/debian-sid/root, run under bubblewrap (make sid-pythons)
        pyenv,
    };

    origin origin_of(const std::string& executable);
    // What programs read ("path", "project_build", "sid_root", "pyenv": %gilinfo's "origin").
    std::string origin_key(origin where);
    // What people read ("PATH", "project build", "Debian unstable root (bwrap)", "pyenv": "found in").
    std::string found_in_text(origin where);

    // What an interpreter says about itself (runners/interpreter.py).
    struct interpreter_info
    {
        std::string executable;
        origin found = origin::path;
        std::string version;  // "3.9.18"
        bool free_threaded_build = false;
        bool gil_enabled = true;
        nl::json raw;  // everything the probe reported (its "build": how it was compiled)

        // How it was compiled, for people: "PGO+LTO", "no PGO/LTO", "PGO+LTO, debug".
        std::string build_text() const;
        // Version and build, never a path: "3.11.2 (Debian, PGO+LTO)",
        // "3.13.5t (project build, no PGO/LTO, GIL off)", "3.9.18 (pyenv, no PGO/LTO)".
        std::string label() const;
    };

    using probe_env = std::map<std::string, std::string>;

    // One interpreter a magic measures under: the kernel itself or a child.
    struct measurement_target
    {
        bool is_kernel = false;
        std::string requested;  // as the student wrote it
        interpreter_info info;  // as it describes itself with `env` set
        probe_env env;  // set in its child's environment: {PYTHON_GIL: 1} for "3.13t:PYTHON_GIL=1"
    };

    // "kernel" (this process), a path, "python3.9", "3.9", "3.13t", "3.9.18": PATH first, then the
    // project's builds, then Debian unstable's root, then pyenv's versions; a free-threaded build
    // may end in ":PYTHON_GIL=1" (or =0) to run with that setting. Empty `list`: the kernel alone. Throws usage_error naming what was not found or not usable.
    std::vector<measurement_target> resolve_interpreters(const std::string& list, const std::string& magic);

    // The executable a name (not "kernel") leads to, searched as resolve_interpreters does; "" if none.
    std::string find_interpreter(const std::string& requested);

    // Every CPython found on this machine (executables, real files deduplicated), in search order.
    std::vector<std::string> discover_interpreters();

    // Adds to a magic's table notes, when it measured other interpreters, where each one is
    // (labels carry no path), one note per target run under bubblewrap, and when their builds
    // differ, that a speed difference between them is partly the build's.
    void add_interpreter_notes(std::vector<std::string>& notes, const std::vector<measurement_target>& targets);

    // What the kernel's own interpreter is, described as a probe describes a child. The
    // description comes from runners/interpreter.py in the kernel, through the function the
    // framework hands in once (set_kernel_describer): workers/ calls no Python module itself.
    interpreter_info kernel_interpreter_info();
    void set_kernel_describer(std::function<nl::json()> describe);

    // What an interpreter said, kept per executable and environment while its file stays the same
    // file (device, inode, size, modification time): a rebuilt or reinstalled one is asked again.
    class probe_cache
    {
    public:
        using probe_function = std::function<interpreter_info(const std::string&, const probe_env&)>;
        // The kept answer, or `probe`'s (kept when the file can be identified). Not locked while
        // probing: a probe waits on a child, interruptibly, with the GIL released.
        interpreter_info get(const std::string& executable, const probe_env& env, const probe_function& probe);

    private:
        struct file_identity
        {
            dev_t device;
            ino_t inode;
            std::int64_t size, modified_ns;
            bool operator==(const file_identity& other) const;
        };
        static std::optional<file_identity> identify(const std::string& executable);

        std::mutex m_mutex;
        std::map<std::pair<std::string, probe_env>, std::pair<file_identity, interpreter_info>> m_answers;
    };

    // Runs the probe in a child (`env` adds variables, e.g. PYTHON_GIL=1), or answers from the
    // kernel's cache. Throws usage_error when the executable does not answer as a Python.
    interpreter_info probe_interpreter(const std::string& executable, const probe_env& env = {});
}
