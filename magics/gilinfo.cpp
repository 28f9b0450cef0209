// %gilinfo: what decides this interpreter's concurrency, in one table.
#include <pybind11_json/pybind11_json.hpp>
#include <pybind11/stl.h>

#include "framework/python_side.hpp"
#include "workers/interpreters.hpp"
#include "render/figures.hpp"
#include "framework/registry.hpp"
#include "manual.hpp"

namespace gillab
{
    namespace
    {
        Row row(const std::string& property, Cell value, const std::string& why)
        {
            return {property, std::move(value), why};
        }

        std::string build_note()
        {
            return "built with: profile-guided (PGO, --enable-optimizations) and link-time (LTO, --with-lto) "
                   "optimisation, read from each interpreter's sysconfig (CONFIG_ARGS, compiler flags; in the "
                   "JSON's build), except Debian's own executables, built PGO+LTO on this architecture by "
                   "Debian's package build, which leaves those flags out of sysconfig. Together they make pure "
                   "Python markedly faster, so only interpreters built alike compare versions; the project's "
                   "3.13 and 3.13t (make free-threaded-python) are built alike, without them "
                   "(docs/benchmarks.md says why).";
        }

        // --interpreters: every CPython on this machine, asked what it is.
        Result list_interpreters()
        {
            py::object realpath = py::module_::import("os.path").attr("realpath");
            const std::string kernel_executable = realpath(kernel_interpreter_info().executable).cast<std::string>();
            Result result;
            result.magic = "gilinfo";
            result.table.title = "CPython interpreters on this machine (usable with --python)";
            result.table.columns = {{"executable", "executable", ""}, {"found_in", "found in", ""}, {"version", "version", ""}, {"build", "built with", ""}, {"free_threaded", "free-threaded build", ""}, {"gil", "GIL", ""}, {"python_gil_1", "PYTHON_GIL=1", ""}, {"start_method", "default start method", ""}, {"switch_interval", "switch interval", ""}};
            nl::json found = nl::json::array();
            for (const std::string& executable : discover_interpreters())
            {
                const origin where = origin_of(executable);
                nl::json entry = {{"executable", executable}, {"found_in", found_in_text(where)}, {"origin", origin_key(where)}, {"kernel", realpath(executable).cast<std::string>() == kernel_executable}};
                Row row{executable + (entry["kernel"].get<bool>() ? " (this kernel)" : ""), entry["found_in"].get<std::string>()};
                try
                {
                    const interpreter_info info = probe_interpreter(executable);
                    entry["version"] = info.version;
                    entry["label"] = info.label();
                    entry["build"] = info.raw.value("build", nl::json::object());
                    entry["free_threaded_build"] = info.free_threaded_build;
                    entry["gil_enabled"] = info.gil_enabled;
                    entry["default_start_method"] = info.raw.value("default_start_method", "");
                    const nl::json interval = info.raw.value("switch_interval_s", nl::json());
                    entry["switch_interval_ms"] = interval.is_number() ? nl::json(interval.get<double>() * 1e3) : nl::json();
                    // A free-threaded build can turn the GIL back on (for extensions not ready for it).
                    entry["gil_enabled_with_python_gil_1"] =
                        info.free_threaded_build ? nl::json(probe_interpreter(executable, {{"PYTHON_GIL", "1"}}).gil_enabled) : nl::json(true);
                    row.insert(row.end(), {info.version, info.build_text(), info.free_threaded_build ? "yes" : "no", info.gil_enabled ? "on" : "off",
                                           !info.free_threaded_build                            ? "on (always)"
                                           : entry["gil_enabled_with_python_gil_1"].get<bool>() ? "turns it on"
                                                                                                : "stays off",
                                           entry["default_start_method"].get<std::string>(),
                                           interval.is_number() ? Cell(ms_text(interval.get<double>() * 1e3)) : Cell()});
                }
                catch (const usage_error& error)
                {
                    entry["error"] = error.what();
                    row.insert(row.end(), {"did not answer", Cell(), Cell(), Cell(), Cell(), Cell(), Cell()});
                }
                result.table.rows.push_back(row);
                found.push_back(entry);
            }
            result.table.notes = {build_note(), "Searched: PATH, the project's builds (make free-threaded-python), Debian unstable's 3.14 and "
                                                "3.15 (make sid-pythons; run under bubblewrap in their own root) and pyenv's versions. "
                                                "Give any CPython 3.8+ of them to --python by path, name (python3.9) or version (3.9, 3.13t, 3.14)."};
            result.data = {{"interpreters", found}};
            return result;
        }

        Result measure(const magic_call& call)
        {
            if (call.args.has("interpreters")) return list_interpreters();

            // gillab/magics/concurrency_facts.py: the same names as the result's fields.
            const nl::json facts = python_side::concurrency_facts();
            const std::string version = facts["python_version"];
            const bool free_threaded_build = facts["free_threaded_build"];
            const bool gil_enabled = facts["gil_enabled"];
            const double switch_interval = facts["switch_interval_s"];
            const std::int64_t cpu_count = facts["cpu_count"];
            const std::int64_t usable_cpus = facts["usable_cpus"];
            const std::int64_t affinity_cpus = facts["affinity_cpus"];
            const std::string cores_why = facts["cores_why"];
            const std::int64_t pool_workers = facts["default_thread_pool_workers"];
            const std::string start_method = facts["default_start_method"];
            std::string all_methods;
            for (const nl::json& method : facts["start_methods"]) all_methods += (all_methods.empty() ? "" : ", ") + method.get<std::string>();
            const std::string implementation = facts["implementation"];
            const std::string executable = facts["executable"];

            Result result;
            result.magic = "gilinfo";
            result.table.title = "What decides concurrency in this interpreter";
            result.table.columns = {{"property", "Property", ""}, {"value", "Value", ""}, {"why", "Why it matters", ""}};
            const interpreter_info kernel = kernel_interpreter_info();
            result.table.rows = {
                row("Python", implementation + " " + version, executable),
                row("built with", kernel.build_text(),
                    "PGO and LTO make pure Python markedly faster: compare interpreters built alike (known from " +
                        kernel.raw["build"].value("flags_from", std::string("sysconfig")) + ")"),
                row("free-threaded build", free_threaded_build ? "yes" : "no",
                    "built with --disable-gil (PEP 703); the 't' in python3.13t"),
                row("GIL enabled", gil_enabled ? "yes" : "no",
                    gil_enabled ? "one thread runs Python bytecode at a time" : "threads run Python bytecode in parallel"),
                row("switch interval", ms_text(switch_interval * 1e3),
                    "how long a thread may hold the GIL before a waiting thread asks for it"),
                row("CPUs on the machine", cpu_count, "os.cpu_count(): counts CPUs a container or taskset may not give you"),
                row("CPUs in the affinity mask", affinity_cpus, "os.sched_getaffinity(0): the CPUs this process may run on"),
                row("cores usable", usable_cpus, "set by " + cores_why + ": the ceiling for speed-up"),
                row("default ThreadPoolExecutor workers", pool_workers,
                    "min(32, cpus + 4): a pool of this size caps concurrent waits"),
                row("default start method", start_method, "how multiprocessing starts workers here"),
                row("available start methods", all_methods, "fork copies the kernel; spawn and forkserver re-import"),
            };
            result.data = facts;
            result.data["build"] = kernel.raw["build"];
            result.data["switch_interval_ms"] = switch_interval * 1e3;
            return result;
        }
    }

    magic_definition gilinfo_magic()
    {
        return {"gilinfo",
                magic_kind::line,
                manual_parser("gilinfo", {{"interpreters", 0, "", "list the CPythons on this machine instead"}, output_option()}),
                &measure};
    }
}
