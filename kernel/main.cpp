// gillab: the kernel process. Order matters here: SIGINT is blocked before
// any thread exists, fds 1 and 2 are captured before Python starts, and
// Python starts before the interpreter object that uses it.
#include <csignal>
#include <cstdio>
#include <ext/stdio_filebuf.h>
#include <iostream>
#include <memory>
#include <string>

#include <Python.h>
#include <xeus/xkernel.hpp>
#include <xeus/xkernel_configuration.hpp>
#include <xeus/xeus_context.hpp>
#include <zmq.hpp>

#include "history.hpp"
#include "interpreter.hpp"
#include "interrupt.hpp"
#include "iopub_gate.hpp"
#include "output_capture.hpp"

namespace
{
    std::string connection_file(int argc, char* argv[])
    {
        for (int i = 1; i + 1 < argc; ++i)
        {
            const std::string arg = argv[i];
            if (arg == "-f" || arg == "--connection-file")
            {
                return argv[i + 1];
            }
        }
        return "";
    }

    bool has_flag(int argc, char* argv[], const std::string& flag)
    {
        for (int i = 1; i < argc; ++i)
        {
            if (flag == argv[i])
            {
                return true;
            }
        }
        return false;
    }

    // The CPython found at configure time (Debian's /usr/bin/python3 by
    // default), wherever this binary is installed: program name and home set
    // explicitly, so sys.executable is right for spawned children.
    void start_python(const char* argv0)
    {
        PyConfig config;
        PyConfig_InitPythonConfig(&config);
        config.parse_argv = 0;              // the kernel's own -f is not Python's
        config.install_signal_handlers = 0; // SIGINT belongs to interruptible_cell
        PyConfig_SetBytesString(&config, &config.program_name, GILLAB_PYTHON_EXECUTABLE);
        PyConfig_SetBytesString(&config, &config.home, GILLAB_PYTHON_HOME);
        char* python_argv[] = {const_cast<char*>(argv0)};
        PyConfig_SetBytesArgv(&config, 1, python_argv);
        PyStatus status = Py_InitializeFromConfig(&config);
        PyConfig_Clear(&config);
        if (PyStatus_Exception(status))
        {
            Py_ExitStatusException(status);
        }
    }
}

int main(int argc, char* argv[])
{
    if (has_flag(argc, argv, "--version"))
    {
        std::cout << "gillab " << gillab::version << std::endl;
        return 0;
    }
    const std::string file = connection_file(argc, argv);
    if (file.empty())
    {
        std::cerr << "usage: gillab -f CONNECTION_FILE (started by Jupyter, see the kernelspec)" << std::endl;
        return 2;
    }

    gillab::block_sigint_in_new_threads();
    std::signal(SIGPIPE, SIG_IGN);

    auto publish_text = [](const std::string& name, const std::string& text)
    {
        gillab::iopub_gate* gate = gillab::iopub_gate::instance();
        if (gate == nullptr || !gate->started())
        {
            return false;
        }
        gate->publish_from_any_thread("stream", {{"name", name}, {"text", text}});
        return true;
    };
    gillab::output_capture capture(gillab::iopub_gate::mutex(), publish_text);
    capture.start();
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    // xeus reports its own troubles on std::cerr: those belong in the
    // kernel's terminal, not in a student's notebook.
    __gnu_cxx::stdio_filebuf<char> log_buffer(capture.log_fd(), std::ios::out);
    std::cerr.rdbuf(&log_buffer);
    std::clog.rdbuf(&log_buffer);

    start_python(argv[0]);

    xeus::xconfiguration config = xeus::load_configuration(file);
    auto context = xeus::make_context<zmq::context_t>();
    auto interpreter = std::make_unique<gillab::interpreter>(capture);
    xeus::xkernel kernel(config,
                         xeus::get_user_name(),
                         std::move(context),
                         std::move(interpreter),
                         gillab::make_iopub_gate,
                         gillab::make_history_manager(),
                         nullptr,
                         xeus::make_null_debugger,
                         nl::json::object(),
                         nl::json::error_handler_t::replace);
    gillab::iopub_gate::instance()->set_before_publish([&capture] { capture.drain(); });
    kernel.start();
    return 0;
}
