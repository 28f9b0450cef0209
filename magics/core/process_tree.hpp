// Stopping a process together with everything it started. Killing a worker
// alone orphans its children (they are re-parented to init and run on); a
// tree is frozen first (SIGSTOP) so no member can fork an escaping child.
#pragma once

#include <sys/types.h>

#include <vector>

namespace gillab
{
    // SIGKILLs every process in the trees under `roots`, roots included.
    // Linux only (/proc/PID/task/TID/children).
    void kill_process_trees(const std::vector<pid_t>& roots);
}
