#include "debugger.hpp"
#include "python_side.hpp"

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11_json/pybind11_json.hpp>
#include <xeus-python/xdebugger.hpp>
#include <xeus/xsystem.hpp>
#include <zmq.hpp>

namespace gillab
{
    namespace py = pybind11;
    namespace nl = nlohmann;

    namespace
    {
        class debugger : public xpyt::debugger
        {
        public:
            debugger(zmq::context_t& context, const xeus::xconfiguration& config, const std::string& user_name,
                     const std::string& session_id, const nl::json& debugger_config)
                : xpyt::debugger(context, config, user_name, session_id, debugger_config)
            {
                // Lab asks for the loaded modules after every cell, started or not; an empty
                // reply breaks its debugger panel.
                register_request_handler(
                    "modules", [](const nl::json& message) { return modules_request(message); },
                    false);
            }

        private:
            static nl::json modules_request(const nl::json& message)
            {
                nl::json body;
                {
                    py::gil_scoped_acquire acquire;
                    const nl::json arguments = message.value("arguments", nl::json::object());
                    body = kernel_python_side::loaded_modules(arguments.value("startModule", 0), arguments.value("moduleCount", 0));
                }
                return {{"type", "response"}, {"request_seq", message["seq"]}, {"success", true}, {"command", message["command"]}, {"body", body}};
            }
        };
    }

    namespace
    {
        // Makes the calling thread keep one Python thread state for its life. Without it,
        // each request that calls Python makes a thread state and frees it (pybind11's
        // gil_scoped_acquire on a thread Python does not know), so a GIL watch running
        // meanwhile sees holders come and go under fresh ids; kept, they reuse this one.
        void keep_thread_state()
        {
            thread_local bool kept = false;
            if (kept || !Py_IsInitialized()) return;
            PyGILState_Ensure();  // never released: the state outlives every later acquire
            PyEval_SaveThread();
            kept = true;
        }

        // Every debug request, on the control thread, after that thread keeps its thread state.
        class control_thread_debugger : public xeus::xdebugger
        {
        public:
            explicit control_thread_debugger(std::unique_ptr<xeus::xdebugger> inner)
                : m_inner(std::move(inner))
            {}

        private:
            nl::json process_request_impl(const nl::json& header, const nl::json& message) override
            {
                keep_thread_state();
                if (!m_registered)
                {
                    m_inner->register_control_messenger(get_control_messenger());
                    m_registered = true;
                }
                return m_inner->process_request(header, message);
            }

            std::unique_ptr<xeus::xdebugger> m_inner;
            bool m_registered = false;
        };
    }

    namespace
    {
        // Named when the debugger is built, as xeus-python's debugger names them when it starts;
        // never destroyed, since the kernel ends in exit handlers that run after xeus's statics
        // (its temp prefix among them) are gone.
        const std::vector<std::string>* debugger_files = nullptr;
    }

    std::unique_ptr<xeus::xdebugger> make_debugger(xeus::xcontext& context,
                                                   const xeus::xconfiguration& config,
                                                   const std::string& user_name,
                                                   const std::string& session_id,
                                                   const nl::json& debugger_config)
    {
        if (debugger_files == nullptr)
        {
            debugger_files = new std::vector<std::string>{
                xeus::get_tmp_prefix("xpython"),
                xeus::get_temp_directory_path() + "/xpython_debug_logs_" + std::to_string(xeus::get_current_pid())};
        }
        return std::make_unique<control_thread_debugger>(std::make_unique<debugger>(
            context.get_wrapped_context<zmq::context_t>(), config, user_name, session_id, debugger_config));
    }

    void remove_debugger_files()
    {
        if (debugger_files == nullptr) return;
        std::error_code ignored;
        for (const std::string& path : *debugger_files) std::filesystem::remove_all(path, ignored);
    }
}
