// Debian unstable's own CPythons (3.14, 3.15: tools/build-sid-pythons) live in a root file system
// of their own and run under bubblewrap with that root as /. This file is the one place their
// command line is written: the magics' children (workers/child_interpreter, the probe in
// workers/interpreters) and the course's helpers (`_gillab.interpreter_command`) all take it here.
#pragma once

#include <string>
#include <vector>

namespace gillab
{
    // $GILLAB_CACHE/debian-sid/root (default /var/cache/gillab/debian-sid/root).
    std::string sid_root_folder();

    // Whether `executable` is one of the interpreters in that root.
    bool runs_in_sid_root(const std::string& executable);

    // The command that starts `executable`: itself, or bubblewrap running it in the root, with the
    // runners (read-only), `writable` folders and the kernel's working folder (read-only) bound in at
    // their own paths, started in `workdir` (default: the working folder). Asks nothing of Python.
    std::vector<std::string> interpreter_command(const std::string& executable, const std::vector<std::string>& writable = {},
                                                 const std::string& workdir = "");
}
