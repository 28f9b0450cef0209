// The kernel in a running Python: `python3 -m gillab.kernel -f FILE` calls
// launch() on the main thread, GIL held, before any other thread exists.
#pragma once

#include <string>

namespace gillab
{
    // Serves the connection file until the kernel is shut down; the
    // process then ends from inside, through end_process.
    void launch(const std::string& connection_file);

    // The one way the kernel process ends (shutdown_request, exit() in a
    // cell): Python's atexit functions, the last output, then _exit(0).
    [[noreturn]] void end_process();
}
