#include "workers/child_interpreter.hpp"

#include <stdexcept>

#include "base/usage_error.hpp"
#include "workers/child_process.hpp"
#include "workers/sid_root.hpp"

namespace gillab
{
    nl::json run_in_child(const measurement_target& target, const nl::json& request, const std::string& magic,
                          const std::function<void(const std::string&)>& on_progress)
    {
        std::vector<std::string> writable;
        if (request.contains("folder") && request["folder"].is_string()) writable.push_back(request["folder"]);
        std::vector<std::string> command = interpreter_command(target.info.executable, writable);
        command.insert(command.end(), {"-s", runners_directory() + "/child.py", std::to_string(result_fd_in_child)});
        child_process child(command, target.env, false, true);
        nl::json sent = request;
        sent["progress"] = static_cast<bool>(on_progress);  // else the child sends the answer alone
        const int status = child.exchange(sent.dump(), 0, on_progress);
        const std::string where = "%" + magic + " under " + target.requested + " (" + target.info.executable + ")";
        nl::json answer;
        try
        {
            answer = nl::json::parse(child.result_text);
        }
        catch (const nl::json::exception&)
        {
            const std::string why = last_line(child.stderr_text);
            throw std::runtime_error(where + ": the child ended without an answer (" + describe_exit(status) + ")" +
                                     (why.empty() ? "" : ": " + why));
        }
        if (!answer.value("ok", false))
        {
            const std::string error = answer.value("error", "unknown error");
            if (answer.value("kind", "") == "usage") throw usage_error("%" + magic + ": " + error);
            throw std::runtime_error(where + ": " + error + "\n" + answer.value("traceback", ""));
        }
        return answer["result"];
    }
}
