// A forked copy of the kernel: os.fork() in a cell whose child does not end
// with os._exit. The child runs the rest of the cell and would then carry on
// as the kernel, but the kernel's ZeroMQ sockets belong to the parent's I/O
// threads (a forked child has none, and writing to them breaks the parent's),
// and so do its output pipes and its requests. So a forked copy publishes
// nothing and reads nothing of the kernel's; when its copy of the cell ends it
// exits, as a child of a plain script would at the end of the script. What it
// prints still reaches the notebook: its fds 1 and 2 are the kernel's capture
// pipes, which the parent reads.
#pragma once

namespace gillab
{
    // Called once at launch, in the kernel's own process.
    void remember_kernel_process();

    // True in a process forked from the kernel (or from such a process).
    bool is_forked_copy();

    // Ends a forked copy at once with `status`, C stdio flushed first;
    // Python's streams are the caller's to flush.
    [[noreturn]] void end_forked_copy(int status);
}
