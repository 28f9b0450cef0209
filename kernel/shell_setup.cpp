#include "shell_setup.hpp"

#include <pybind11/eval.h>
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

        // input() and getpass() through the protocol's stdin channel. xeus
        // sends the request and blocks on the reply, which reaches the
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
            interpreter.register_input_handler([&](const std::string& reply)
            {
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

        // Python glue kept next to the C++ that calls it. Run in a fresh dict.
        void run(const char* code, py::dict scope)
        {
            py::exec(code, scope);
        }
    }

    void bind_kernel_hooks(py::module_& m)
    {
        m.def("publish_from_thread", &publish_from_thread, "msg_type"_a, "content"_a);
        m.def("request_input", &request_input, "prompt"_a, "password"_a);
    }

    void install_fd_streams()
    {
        run(R"PY(
import io, sys
def _fd_stream(fd):
    return io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding="utf-8",
                            errors="backslashreplace", line_buffering=True)
sys.stdout = sys.__stdout__ = _fd_stream(1)
sys.stderr = sys.__stderr__ = _fd_stream(2)
)PY", py::dict());
    }

    void install_error_recorder(py::object shell)
    {
        py::dict scope("shell"_a = shell);
        run(R"PY(
def _showtraceback(etype, evalue, stb):
    shell.last_error = [getattr(etype, "__name__", str(etype)), str(evalue), stb]
shell._showtraceback = _showtraceback

# A UsageError (a bad magic argument) is an error reply with one line, not
# stderr text under an "ok" reply.
def show_usage_error(exc):
    shell.last_error = ["UsageError", str(exc), ["\x1b[0;31mUsageError\x1b[0m: " + str(exc)]]
shell.show_usage_error = show_usage_error
)PY", scope);
    }

    void install_exit_request(py::object shell)
    {
        py::dict scope("shell"_a = shell);
        run(R"PY(
from IPython.core.autocall import ZMQExitAutocall
shell.keepkernel_on_exit = None
def ask_exit():
    keep = bool(shell.keepkernel_on_exit)
    shell.exit_now = not keep
    shell.payload_manager.write_payload({"source": "ask_exit", "keepkernel": keep})
shell.ask_exit = ask_exit
shell.exiter = ZMQExitAutocall(shell)
for name in ("exit", "quit"):
    shell.user_ns[name] = shell.user_ns_hidden[name] = shell.exiter
)PY", scope);
    }

    void forget_cell_sources_after_tracebacks(py::object shell)
    {
        py::dict scope("shell"_a = shell);
        run(R"PY(
import os
try:
    import executing
except ImportError:  # an IPython without stack_data keeps no such cache
    executing = None

def _source_classes(cls):
    yield cls
    for sub in cls.__subclasses__():
        yield from _source_classes(sub)

def _on_disk(filename):
    return os.path.isfile(filename)

# The per-class dicts are keyed by (filename, lines) and (code, id, lasti);
# entries for library files stay, so their sources are not parsed again.
def _forget_cell_sources():
    for cls in _source_classes(executing.Source):
        for name, filename_of in (("__source_cache_with_lines", lambda key: key[0]),
                                  ("__executing_cache", lambda key: key[0].co_filename)):
            cache = vars(cls).get(name)
            if isinstance(cache, dict):
                for key in [key for key in cache if not _on_disk(filename_of(key))]:
                    del cache[key]
    # Unbounded lru_caches keyed by a source or a tree node: cheap to refill
    # from the sources kept above.
    for cached in (executing.Source.statements_at_line, executing.executing.statement_containing_node):
        cached.cache_clear()

if executing is not None:
    _record = shell._showtraceback
    def _showtraceback(etype, evalue, stb):
        _record(etype, evalue, stb)
        try:
            _forget_cell_sources()
        except Exception:
            pass  # another executing's layout: the error report matters more than the bound
    shell._showtraceback = _showtraceback
)PY", scope);
    }

    void route_shell_log(py::object app, int log_fd)
    {
        py::dict scope("app"_a = app, "log_fd"_a = log_fd);
        run(R"PY(
import logging, os
_handler = logging.StreamHandler(os.fdopen(os.dup(log_fd), "w", buffering=1, closefd=True))
app.log.handlers = [_handler]
)PY", scope);
    }

    void route_displays_from_threads(py::object shell)
    {
        py::dict scope("shell"_a = shell,
                       "native"_a = py::module_::import("_gillab").attr("publish_from_thread"));
        run(R"PY(
import sys, threading
_stock = shell.display_pub.publish_display_data
def publish_display_data(data, metadata=None, transient=None, update=False):
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    if threading.current_thread() is threading.main_thread():
        _stock(data, metadata, transient, update)
    else:
        content = {"data": data, "metadata": metadata or {}, "transient": transient or {}}
        native("update_display_data" if update else "display_data", content)
shell.display_pub.publish_display_data = publish_display_data
)PY", scope);
    }

    void allow_stdin(bool allowed)
    {
        stdin_allowed = allowed;
    }

    void route_input_to_the_front_end()
    {
        py::dict scope("native"_a = py::module_::import("_gillab").attr("request_input"));
        run(R"PY(
import builtins, getpass
def input(prompt=""):
    return native(str(prompt), False)
def getpass_(prompt="Password: ", stream=None):
    return native(str(prompt), True)
builtins.input = input
getpass.getpass = getpass_
)PY", scope);
    }

    void load_gillab_extension(py::object shell)
    {
        py::dict scope("shell"_a = shell);
        run(R"PY(
import gillab
gillab.load_ipython_extension(shell)
)PY", scope);
    }
}
