// %%race's native pool (%%gilbench times a ThreadPoolExecutor instead): runs a
// Python callable over job indices 0..jobs-1 in N OS threads, released
// together (beyond 64, in a quick chain: see thread_pool.cpp), and times the
// run from the release to the last result. Workers take the GIL only to call
// the job.
#pragma once

#include <string>
#include <vector>

#include <pybind11/pybind11.h>

namespace gillab
{
    namespace py = pybind11;

    struct pool_run
    {
        double wall_s = 0;  // release -> last job done
        double startup_s = 0;  // thread creation -> all parked at the start line
        std::vector<py::object> results;
        bool failed = false;
        std::string error_text;  // the failing job's traceback, when failed
        long failed_job = -1;
        bool over_budget = false;  // stopped once budget_s was spent; results incomplete
        int abandoned_workers = 0;  // left running in a C call when the run stopped
    };

    // Call with the GIL held. Interruptible: on KeyboardInterrupt the
    // workers stop taking jobs, get the exception raised in them, are joined,
    // and the KeyboardInterrupt propagates. Once budget_s has passed since
    // the release, the workers get RunOverBudget the same way and the run
    // returns with over_budget set. Either way, workers still blocked in a C
    // call (a sleep) after a grace period are detached, to end when the call
    // returns; `abandoned_workers` (or the KeyboardInterrupt) says how many.
    pool_run run_in_native_threads(py::object job, long jobs, int workers, double budget_s);
}
