#include "process_tree.hpp"

#include <dirent.h>
#include <signal.h>

#include <fstream>
#include <set>
#include <string>

namespace gillab
{
    namespace
    {
        std::vector<pid_t> children_of(pid_t pid)
        {
            std::vector<pid_t> children;
            const std::string task_dir = "/proc/" + std::to_string(pid) + "/task";
            DIR* dir = opendir(task_dir.c_str());
            if (dir == nullptr) return children;
            while (dirent* entry = readdir(dir))
            {
                if (entry->d_name[0] == '.') continue;
                std::ifstream in(task_dir + "/" + entry->d_name + "/children");
                for (pid_t child; in >> child;) children.push_back(child);
            }
            closedir(dir);
            return children;
        }
    }

    void kill_process_trees(const std::vector<pid_t>& roots)
    {
        std::set<pid_t> frozen;
        // Two sweeps: a child forked just before its parent froze shows up
        // in the parent's list only once the fork has returned.
        for (int sweep = 0; sweep < 2; ++sweep)
        {
            std::vector<pid_t> frontier(roots.begin(), roots.end());
            while (!frontier.empty())
            {
                const pid_t pid = frontier.back();
                frontier.pop_back();
                if (pid <= 0) continue;
                if (frozen.insert(pid).second && kill(pid, SIGSTOP) != 0) continue;  // already gone
                for (pid_t child : children_of(pid)) frontier.push_back(child);
            }
        }
        for (pid_t pid : frozen) kill(pid, SIGKILL);
    }
}
