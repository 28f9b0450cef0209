#include "shell_setup.hpp"
#include "python_side.hpp"

#include <pybind11_json/pybind11_json.hpp>

#include <xeus/xinterpreter.hpp>

#include "iopub_gate.hpp"

namespace gillab
{
    using namespace pybind11::literals;

    namespace
    {
        void publish_from_thread(const std::string& msg_type, py::dict content)
        {
            nl::json message = content;
            py::gil_scoped_release release;  // the gate's mutex comes before the GIL
            if (iopub_gate* gate = iopub_gate::instance())
            {
                gate->publish_from_any_thread(msg_type, std::move(message));
            }
        }

        bool stdin_allowed = false;

        // xeus sends the request and blocks on the reply, which reaches the
        // handler before input_request returns.
        std::string request_input(const std::string& prompt, bool password)
        {
            if (!stdin_allowed)
            {
                py::object error = py::module_::import("IPython.core.error").attr("StdinNotImplementedError");
                PyErr_SetString(error.ptr(), "this front end does not support input requests");
                throw py::error_already_set();
            }
            xeus::xinterpreter& interpreter = xeus::get_interpreter();
            std::string value;
            bool answered = false;
            interpreter.register_input_handler([&](const std::string& reply) {
                value = reply;
                answered = true;
            });
            try
            {
                py::gil_scoped_release release;
                interpreter.input_request(prompt, password);
            }
            catch (const std::exception&)
            {
                // The stop button breaks the wait with EINTR: report it as what it is.
            }
            interpreter.register_input_handler(nullptr);
            if (PyErr_CheckSignals() != 0)
            {
                throw py::error_already_set();
            }
            if (!answered)
            {
                throw std::runtime_error("no reply to the input request");
            }
            return value;
        }
    }

    void install_shell_changes(py::object shell, py::object app, int log_fd)
    {
        kernel_python_side::install_shell_changes(shell, app, log_fd, py::module_::import("_gillab"));
    }

    void bind_kernel_hooks(py::module_& m)
    {
        m.def("publish_from_thread", &publish_from_thread, "msg_type"_a, "content"_a);
        m.def("request_input", &request_input, "prompt"_a, "password"_a);
    }

    void allow_stdin(bool allowed)
    {
        stdin_allowed = allowed;
    }
}
