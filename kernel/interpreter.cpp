#include "interpreter.hpp"
#include "python_side.hpp"

#include <Python.h>
#include <pybind11/stl.h>
#include <pybind11_json/pybind11_json.hpp>
#include <xeus/xeus.hpp>

#include "forked_copy.hpp"
#include "interrupt.hpp"
#include "iopub_gate.hpp"
#include "shell_setup.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        std::string dotted(int major, int minor, int patch)
        {
            return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
        }

        void flush_python_streams()
        {
            py::module_ sys = py::module_::import("sys");
            for (const char* name : {"stdout", "stderr"})
            {
                try
                {
                    sys.attr(name).attr("flush")();
                }
                catch (py::error_already_set&)
                {
                    // A student may have replaced or closed the stream; the cell's
                    // reply matters more than its last line of text.
                }
            }
        }
    }

    // Output redirection off: the stock one publishes from whichever thread
    // writes, which is exactly the race the output capture avoids.
    interpreter::interpreter(output_capture& capture)
        : xpyt::interpreter(false, true)
        , m_capture(capture)
    {
    }

    void interpreter::configure_impl()
    {
        xpyt::interpreter::configure_impl();
        py::gil_scoped_acquire acquire;
        install_shell_changes(m_ipython_shell, m_ipython_shell_app, m_capture.log_fd());
    }

    nl::json interpreter::execute_request_impl(int /*execution_counter*/,
                                               const std::string& code,
                                               bool silent,
                                               bool store_history,
                                               nl::json user_expressions,
                                               bool allow_stdin)
    {
        gillab::allow_stdin(allow_stdin);
        // Whatever goes wrong in here, the client gets a reply: without one
        // a notebook waits forever.
        try
        {
            return run_cell(code, silent, store_history, std::move(user_expressions));
        }
        catch (const std::exception& e)
        {
            if (is_forked_copy()) end_forked_copy(1);
            const std::string what = std::string("gillab kernel: ") + e.what();
            publish_execution_error("KernelError", what, {what});
            return {{"status", "error"}, {"ename", "KernelError"}, {"evalue", what}, {"traceback", {what}}};
        }
    }

    nl::json interpreter::run_cell(const std::string& code, bool silent, bool store_history, nl::json user_expressions)
    {
        if (iopub_gate* gate = iopub_gate::instance())
        {
            gate->set_output_parent(parent_header());
        }
        py::gil_scoped_acquire acquire;
        nl::json reply;
        {
            interruptible_cell cell;
            m_ipython_shell.attr("last_error") = py::none();
            py::object outcome =
                m_ipython_shell.attr("run_cell")(code, "store_history"_a = store_history, "silent"_a = silent);
            if (is_forked_copy()) end_cell_in_forked_copy();
            // Whatever the cell did to them, what follows (and the next cell) prints.
            m_capture.restore_descriptors();
            kernel_python_side::repair_streams();
            if (m_ipython_shell.attr("last_error").is_none() && !outcome.attr("success").cast<bool>())
            {
                record_silenced_error(outcome);
            }
            if (!m_ipython_shell.attr("last_error").is_none())
            {
                py::list error = m_ipython_shell.attr("last_error");
                if (error[0].cast<std::string>() == "KeyboardInterrupt")
                {
                    std::string report = cell.stop_what_the_cell_started();
                    if (!report.empty())
                    {
                        py::print(report, "file"_a = py::module_::import("sys").attr("stderr"));
                    }
                }
            }
        }
        flush_python_streams();
        m_capture.drain();

        py::object payload_manager = m_ipython_shell.attr("payload_manager");
        reply["payload"] = payload_manager.attr("read_payload")();
        payload_manager.attr("clear_payload")();
        if (m_ipython_shell.attr("exit_now").cast<bool>())
        {
            if (iopub_gate* gate = iopub_gate::instance())
            {
                gate->exit_after_idle();
            }
        }

        if (!m_ipython_shell.attr("last_error").is_none())
        {
            nl::json error = error_reply(silent);
            error["payload"] = reply["payload"];
            return error;
        }
        reply["status"] = "ok";
        reply["user_expressions"] = m_ipython_shell.attr("user_expressions")(user_expressions);
        return reply;
    }

    // A forked copy's cell ended (see forked_copy.hpp): its error goes to
    // stderr, as an uncaught exception's in a forked child of a script would.
    void interpreter::end_cell_in_forked_copy()
    {
        py::object error = m_ipython_shell.attr("last_error");
        if (!error.is_none())
        {
            try
            {
                py::object traceback = py::str("\n").attr("join")(py::list(error)[2]);
                py::module_::import("sys").attr("stderr").attr("write")(traceback + py::str("\n"));
            }
            catch (py::error_already_set&)
            {
                // The cell replaced or closed stderr: the exit status still says it failed.
            }
        }
        flush_python_streams();
        end_forked_copy(error.is_none() ? 0 : 1);
    }

    // A cell that replaced shell.showtraceback still failed: the reply says so
    // (as ipykernel's does), though no traceback was shown.
    void interpreter::record_silenced_error(py::object outcome)
    {
        py::object error = outcome.attr("error_before_exec");
        if (error.is_none())
        {
            error = outcome.attr("error_in_exec");
        }
        std::string ename = "Error";
        std::string evalue;
        if (!error.is_none())
        {
            ename = py::str(py::type::of(error).attr("__name__"));
            evalue = py::str(error);
        }
        py::list record;
        record.append(ename);
        record.append(evalue);
        record.append(py::list());
        m_ipython_shell.attr("last_error") = record;
    }

    nl::json interpreter::error_reply(bool silent)
    {
        py::list error = m_ipython_shell.attr("last_error");
        std::string ename = error[0].cast<std::string>();
        std::string evalue = error[1].cast<std::string>();
        std::vector<std::string> traceback = error[2].cast<std::vector<std::string>>();
        if (!silent)
        {
            publish_execution_error(ename, evalue, traceback);
        }
        return {{"status", "error"}, {"ename", ename}, {"evalue", evalue}, {"traceback", traceback}};
    }

    nl::json interpreter::kernel_info_request_impl()
    {
        nl::json info = xpyt::interpreter::kernel_info_request_impl();
        // The running interpreter's version, not the headers' that xeus-python
        // was compiled against (Debian's library says 3.11.1 on 3.11.2).
        const std::string runtime = Py_GetVersion();
        const std::string python_version = runtime.substr(0, runtime.find(' '));
        info["implementation"] = "gillab";
        info["implementation_version"] = version;
        info["banner"] = "gillab " + std::string(version) + ": a Python kernel that measures the GIL\n"
                                                            "Python " +
                         python_version + ", xeus " +
                         dotted(XEUS_VERSION_MAJOR, XEUS_VERSION_MINOR, XEUS_VERSION_PATCH) + ", xeus-python " +
                         dotted(XPYT_VERSION_MAJOR, XPYT_VERSION_MINOR, XPYT_VERSION_PATCH) +
                         "\nMagics: %gilinfo (more with %lsmagic)";
        info["debugger"] = true;
        info["gillab"] = {{"version", version},
                          {"xeus", dotted(XEUS_VERSION_MAJOR, XEUS_VERSION_MINOR, XEUS_VERSION_PATCH)},
                          {"xeus_python", dotted(XPYT_VERSION_MAJOR, XPYT_VERSION_MINOR, XPYT_VERSION_PATCH)},
                          {"python", python_version}};
        info["language_info"]["version"] = python_version;
        info["language_info"]["codemirror_mode"] = {{"name", "ipython"}, {"version", 3}};
        info["language_info"]["pygments_lexer"] = "ipython3";
        info["language_info"]["nbconvert_exporter"] = "python";
        return info;
    }
}
