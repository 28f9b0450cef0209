#include "launch.hpp"
#include "python_side.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ext/stdio_filebuf.h>
#include <iostream>
#include <memory>
#include <unistd.h>

#include <pybind11/pybind11.h>
#include <xeus/xkernel.hpp>
#include <xeus/xkernel_configuration.hpp>
#include <xeus/xeus_context.hpp>
#include <zmq.hpp>

#include "debugger.hpp"
#include "framework/progress.hpp"
#include "forked_copy.hpp"
#include "history.hpp"
#include "interpreter.hpp"
#include "interrupt.hpp"
#include "iopub_gate.hpp"
#include "output_capture.hpp"

namespace gillab
{
    namespace py = pybind11;

    namespace
    {
        output_capture* the_capture = nullptr;

        bool publish_text(const std::string& name, const std::string& text)
        {
            iopub_gate* gate = iopub_gate::instance();
            if (gate == nullptr || !gate->started())
            {
                return false;
            }
            gate->publish_from_any_thread("stream", {{"name", name}, {"text", text}});
            return true;
        }
    }

    // xeus ends the kernel with std::exit() from the main thread while its
    // detached threads still run; the static destructors that would follow
    // race them (std::terminate in a Python host), so the process ends here.
    void end_process()
    {
        if (Py_IsInitialized())
        {
            py::gil_scoped_acquire acquire;
            try
            {
                kernel_python_side::finish_launch();
            }
            catch (py::error_already_set& e)
            {
                std::cerr << "gillab: at shutdown: " << e.what() << std::endl;
            }
        }
        if (the_capture != nullptr)
        {
            the_capture->drain();
        }
        remove_debugger_files();
        std::fflush(nullptr);
        _exit(0);
    }

    namespace
    {
        std::string current_python_executable()
        {
            py::gil_scoped_acquire acquire;
            return py::module_::import("sys").attr("executable").cast<std::string>();
        }
    }

    void launch(const std::string& connection_file)
    {
        // Order matters: SIGINT is blocked before the kernel's first thread,
        // and fds 1 and 2 are captured before anything writes to them.
        remember_kernel_process();
        block_sigint_in_new_threads();

        // Both live as long as the process, which ends in end_process, never
        // by returning from here.
        the_capture = new output_capture(iopub_gate::mutex(), publish_text);
        the_capture->start();
        std::setvbuf(stdout, nullptr, _IOLBF, 0);
        // xeus reports its own troubles on std::cerr: those belong in the
        // kernel's terminal, not in a student's notebook.
        auto* log_buffer = new __gnu_cxx::stdio_filebuf<char>(the_capture->log_fd(), std::ios::out);
        std::cerr.rdbuf(log_buffer);
        std::clog.rdbuf(log_buffer);
        // Exit handlers run in reverse order: this one runs after the destructors of statics
        // built from here on (xeus's among them), so end_process must not reach for those.
        std::atexit([] { end_process(); });

        xeus::xconfiguration config = xeus::load_configuration(connection_file);
        auto context = xeus::make_context<zmq::context_t>();
        auto interpreter = std::make_unique<gillab::interpreter>(*the_capture);
        // The debugger (debugpy, started on the first debug request) runs its adapter with the
        // kernel's own interpreter.
        const nl::json debugger_config = {{"python", current_python_executable()}};
        xeus::xkernel kernel(config,
                             xeus::get_user_name(),
                             std::move(context),
                             std::move(interpreter),
                             make_iopub_gate,
                             make_history_manager(),
                             nullptr,
                             make_debugger,
                             debugger_config,
                             nl::json::error_handler_t::replace);
        iopub_gate::instance()->set_before_publish([] { the_capture->drain(); });
        // Magics whose cell runs on the shell thread show their progress from a thread of their own.
        set_any_thread_publisher([](const std::string& msg_type, nl::json content) {
            if (iopub_gate* gate = iopub_gate::instance()) gate->publish_from_any_thread(msg_type, std::move(content));
        });
        kernel.start();
    }
}
