#include "framework/registry.hpp"

#include "framework/presentation.hpp"
#include "framework/python_side.hpp"
#include "framework/thread_tools.hpp"

namespace gillab
{
    magic_definition gilinfo_magic();
    magic_definition gilbench_magic();
    magic_definition race_magic();
    magic_definition switchinterval_magic();
    magic_definition heartbeat_magic();
    magic_definition gilwatch_magic();

    const std::vector<magic_definition>& all_magics()
    {
        static const std::vector<magic_definition> magics = {gilinfo_magic(), gilbench_magic(), race_magic(),
                                                             switchinterval_magic(), heartbeat_magic(),
                                                             gilwatch_magic()};
        return magics;
    }

    option_spec output_option()
    {
        return {"out", 'o', "NAME", "also store the result object in the variable NAME"};
    }

    option_spec python_option()
    {
        return {"python", 0, "PATH_OR_NAME,...",
                "measure under these interpreters, each in a child process: a path, python3.9, 3.9, 3.13t, 3.9.18 "
                "(PATH, the project's builds, Debian unstable's 3.14 / 3.15, pyenv), or kernel for this kernel itself (default: kernel); "
                "a free-threaded build with its GIL on: 3.13t:PYTHON_GIL=1"};
    }

    option_spec no_published_option()
    {
        return {"no-published", 0, "", "leave the published figures out of the table and chart (predict first)"};
    }

    published_figures read_published_choice(const parsed_args& args)
    {
        return {!args.has("no-published")};
    }

    void published_figures::add_to(const std::string& magic, std::vector<std::string>& notes, Chart& chart) const
    {
        if (!shown) return;
        const nl::json& published = python_side::published_for_magic(magic);
        notes.push_back(published.at("note").get<std::string>());
        for (const nl::json& rule : published.value("chart_rules", nl::json::array()))
            chart.rules.push_back({rule[0].get<std::string>(), rule[1].get<double>()});
    }

    namespace
    {
        // The magic state guard (gillab/magics/state_guard.py) around one magic: what its jobs
        // changed is put back when the scope ends, also when the magic throws (an error,
        // KeyboardInterrupt). Construct and destroy with the GIL held, on the kernel's main thread.
        class magic_scope
        {
        public:
            magic_scope()
                : m_guard(python_side::enter_magic_state(thread_tools()))
            {}

            ~magic_scope()
            {
                // Unwinding: keep any pending Python error as it is.
                PyObject *type, *value, *traceback;
                PyErr_Fetch(&type, &value, &traceback);
                try
                {
                    python_side::leave_magic_state(m_guard);
                }
                catch (const std::exception&)
                {
                    PyErr_Clear();
                }
                PyErr_Restore(type, value, traceback);
            }

            magic_scope(const magic_scope&) = delete;
            magic_scope& operator=(const magic_scope&) = delete;

            // Puts back now; the note saying what that was, or "".
            std::string restore() { return python_side::restore_magic_state(m_guard); }

        private:
            py::object m_guard;
        };

        // Dunder names (__builtins__, __name__) belong to the session itself:
        // storing a result there breaks it.
        bool is_result_variable_name(const std::string& name)
        {
            const bool dunder = name.size() > 4 && name.rfind("__", 0) == 0 &&
                                name.compare(name.size() - 2, 2, "__") == 0;
            return !dunder && py::str(name).attr("isidentifier")().cast<bool>() &&
                   !py::module_::import("keyword").attr("iskeyword")(name).cast<bool>();
        }
    }

    py::dict run_magic(const std::string& name, const std::string& line,
                       std::optional<std::string> cell, py::dict user_ns)
    {
        for (const magic_definition& magic : all_magics())
        {
            if (magic.name != name)
            {
                continue;
            }
            magic_call call{magic.parser.parse(line), std::move(cell), user_ns};
            const std::string out_name = call.args.text("out", "");
            if (call.args.has("out") && !is_result_variable_name(out_name))
            {
                throw usage_error("%" + name + ": -o needs a Python variable name (not a keyword or a __dunder__), got " + shown(out_name));
            }
            Result outcome;
            {
                magic_scope guard;
                outcome = magic.run(call);
                const std::string note = guard.restore();
                if (!note.empty()) outcome.table.notes.push_back(note);
            }
            return magic_answer(std::move(outcome), out_name);
        }
        throw usage_error("no gillab magic named '" + name + "'");
    }
}
