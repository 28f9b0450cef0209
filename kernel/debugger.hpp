// The kernel's debugger: xeus-python's (debugpy, started by the first
// `initialize` request), plus the requests JupyterLab 4 sends that
// xeus-python 0.14 leaves unanswered.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>
#include <xeus/xdebugger.hpp>
#include <xeus/xeus_context.hpp>
#include <xeus/xkernel_configuration.hpp>

namespace gillab
{
    // An xkernel debugger builder (debugger_config: {"python": the interpreter debugpy's adapter runs in}).
    std::unique_ptr<xeus::xdebugger> make_debugger(xeus::xcontext& context,
                                                   const xeus::xconfiguration& config,
                                                   const std::string& user_name,
                                                   const std::string& session_id,
                                                   const nlohmann::json& debugger_config);

    // What a debug session leaves in the temp folder (the cells' files, debugpy's logs), named
    // by this process's id: xeus-python never removes it, so the kernel does as it ends.
    void remove_debugger_files();
}
