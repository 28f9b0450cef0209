// The cores this kernel can keep busy: runners/cores.py's one answer (the fewest of the affinity
// mask and the cgroup CPU quota, and which of them set it), for every magic that counts cores.
#pragma once

#include <nlohmann/json.hpp>

namespace gillab
{
    // {cores, limited_by, why, affinity_cpus, quota_cpus, machine_cpus}
    nlohmann::json usable_cores();

    long long core_count();
}
