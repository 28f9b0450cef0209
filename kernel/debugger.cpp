#include "debugger.hpp"

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
                register_request_handler("modules", [](const nl::json& message) { return modules_request(message); },
                                         false);
            }

        private:
            static nl::json modules_request(const nl::json& message)
            {
                nl::json body;
                {
                    py::gil_scoped_acquire acquire;
                    const nl::json arguments = message.value("arguments", nl::json::object());
                    body = py::module_::import("gillab.kernel.debugging")
                               .attr("loaded_modules")(arguments.value("startModule", 0),
                                                       arguments.value("moduleCount", 0))
                               .cast<nl::json>();
                }
                return {{"type", "response"}, {"request_seq", message["seq"]}, {"success", true},
                        {"command", message["command"]}, {"body", body}};
            }
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
        return std::make_unique<debugger>(context.get_wrapped_context<zmq::context_t>(), config, user_name,
                                          session_id, debugger_config);
    }

    void remove_debugger_files()
    {
        if (debugger_files == nullptr) return;
        std::error_code ignored;
        for (const std::string& path : *debugger_files) std::filesystem::remove_all(path, ignored);
    }
}
