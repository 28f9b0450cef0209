#include "workers/sid_root.hpp"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <unistd.h>

#include "workers/child_process.hpp"

namespace gillab
{
    namespace
    {
        // Binding the host's / or its system folders over the root's would break the root's Python
        // (a cell's temp folder under /tmp is fine: the root's /tmp is a tmpfs of its own).
        bool is_system_folder(const std::string& path)
        {
            if (path == "/" || path == "/tmp") return true;
            for (const char* top : {"/usr", "/etc", "/lib", "/lib64", "/bin", "/sbin", "/proc", "/dev", "/sys"})
            {
                const std::string prefix = top;
                if (path == prefix || path.rfind(prefix + "/", 0) == 0) return true;
            }
            return false;
        }

        // The kernel's working folder (a cell's os.chdir changes it too); empty if it is gone.
        std::string working_folder()
        {
            char buffer[PATH_MAX];
            return getcwd(buffer, sizeof buffer) ? std::string(buffer) : std::string();
        }

        // The folders a child in the root must see at their own paths: the runners, the cell's
        // folder(s) (written to: multiprocessing's temp folders go there) and the working folder.
        std::vector<std::string> sandbox_binds(const std::vector<std::string>& writable, const std::string& workdir)
        {
            std::vector<std::string> binds = {"--ro-bind", runners_directory(), runners_directory()};
            for (const std::string& folder : writable)
            {
                if (!is_system_folder(folder)) binds.insert(binds.end(), {"--bind", folder, folder});
            }
            const std::string cwd = working_folder();
            if (!cwd.empty() && !is_system_folder(cwd)) binds.insert(binds.end(), {"--ro-bind", cwd, cwd, "--chdir", cwd});
            if (!workdir.empty() && !is_system_folder(workdir)) binds.insert(binds.end(), {"--chdir", workdir});  // bwrap keeps the last
            return binds;
        }
    }

    std::string sid_root_folder()
    {
        const char* cache = std::getenv("GILLAB_CACHE");
        return std::string(cache && *cache ? cache : "/var/cache/gillab") + "/debian-sid/root";
    }

    bool runs_in_sid_root(const std::string& executable)
    {
        return executable.rfind(sid_root_folder() + "/", 0) == 0;
    }

    std::vector<std::string> interpreter_command(const std::string& executable, const std::vector<std::string>& writable,
                                                 const std::string& workdir)
    {
        if (!runs_in_sid_root(executable)) return {executable};
        std::vector<std::string> command = {"bwrap", "--bind", sid_root_folder(), "/", "--proc", "/proc", "--dev", "/dev",
                                            "--tmpfs", "/tmp", "--die-with-parent"};
        for (const std::string& bind : sandbox_binds(writable, workdir)) command.push_back(bind);
        command.insert(command.end(), {"--", executable.substr(sid_root_folder().size())});
        return command;
    }
}
