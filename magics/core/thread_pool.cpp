#include "thread_pool.hpp"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "budget.hpp"
#include "clock.hpp"
#include "interruptible.hpp"

namespace gillab
{
    namespace
    {
        // Up to this many workers start together, as scaling and race
        // measurements need. Thousands of threads woken at once spend more
        // time fighting over the GIL than running (3000 sleeping jobs: 8 s
        // and 12 s of CPU here, against 1 s for a ThreadPoolExecutor), so
        // beyond it each worker wakes the next once it holds the GIL for its
        // first job, the way a ThreadPoolExecutor starts threads one by one.
        constexpr int release_together_max = 64;

        struct shared_state
        {
            std::mutex mutex;
            std::condition_variable start_line;  // parked workers wait here
            std::condition_variable all_parked;  // the caller waits here
            int parked = 0;
            long tickets = 0;  // workers allowed past the start line
            std::atomic<long> next_job{0};
            std::atomic<bool> stop{false};
            std::atomic<int> finished_workers{0};
            std::vector<unsigned long> python_thread_ids;
            monotonic::time_point last_done{};
        };

        std::string format_current_exception(py::error_already_set& error)
        {
            py::module_ traceback = py::module_::import("traceback");
            py::list lines = traceback.attr("format_exception")(error.type(), error.value(), error.trace());
            return py::str("").attr("join")(lines).cast<std::string>();
        }
    }

    pool_run run_in_native_threads(py::object job, long jobs, int workers, double budget_s)
    {
        pool_run run;
        run.results.assign(static_cast<std::size_t>(jobs), py::none());
        shared_state state;
        state.python_thread_ids.assign(static_cast<std::size_t>(workers), 0);
        std::mutex result_mutex;

        const bool chained = workers > release_together_max;
        auto worker = [&](int index)
        {
            // One thread state for the worker's life, not one per job.
            py::gil_scoped_acquire thread_state;
            state.python_thread_ids[static_cast<std::size_t>(index)] = PyThread_get_thread_ident();
            py::gil_scoped_release between_jobs;
            {
                std::unique_lock<std::mutex> lock(state.mutex);
                if (++state.parked == workers) state.all_parked.notify_one();
                state.start_line.wait(lock, [&] { return state.tickets > 0; });
                --state.tickets;
            }
            bool passed_on = !chained;
            auto wake_next = [&]
            {
                if (passed_on) return;
                passed_on = true;
                {
                    std::lock_guard<std::mutex> lock(state.mutex);
                    ++state.tickets;
                }
                state.start_line.notify_one();
            };
            while (!state.stop)
            {
                const long i = state.next_job++;
                if (i >= jobs)
                {
                    break;
                }
                py::gil_scoped_acquire acquire;
                wake_next();
                try
                {
                    py::object value = job(i);
                    run.results[static_cast<std::size_t>(i)] = std::move(value);
                }
                catch (py::error_already_set& error)
                {
                    std::lock_guard<std::mutex> lock(result_mutex);
                    if (!run.failed && !error.matches(PyExc_KeyboardInterrupt) && !is_over_budget(error))
                    {
                        run.failed = true;
                        run.failed_job = i;
                        run.error_text = format_current_exception(error);
                    }
                    state.stop = true;
                }
                const auto done = monotonic::now();
                std::lock_guard<std::mutex> lock(state.mutex);
                state.last_done = std::max(state.last_done, done);
            }
            wake_next();
            ++state.finished_workers;
        };

        std::vector<std::thread> threads;
        const auto created = monotonic::now();
        try
        {
            {
                py::gil_scoped_release release;
                for (int w = 0; w < workers; ++w)
                {
                    threads.emplace_back(worker, w);
                }
                std::unique_lock<std::mutex> lock(state.mutex);
                state.all_parked.wait(lock, [&] { return state.parked == workers; });
            }
            const auto start = monotonic::now();
            run.startup_s = seconds_between(created, start);
            {
                std::lock_guard<std::mutex> lock(state.mutex);
                state.last_done = start;
                state.tickets = chained ? 1 : workers;
            }
            if (chained) state.start_line.notify_one();
            else state.start_line.notify_all();
            const auto deadline = start + std::chrono::duration_cast<monotonic::duration>(std::chrono::duration<double>(budget_s));
            wait_interruptibly([&] { return state.finished_workers == workers || monotonic::now() >= deadline; });
            if (state.finished_workers != workers)
            {
                run.over_budget = true;
                state.stop = true;
                {
                    std::lock_guard<std::mutex> lock(state.mutex);
                    state.tickets = workers;  // workers still parked leave at once
                }
                state.start_line.notify_all();
                for (unsigned long id : state.python_thread_ids) PyThreadState_SetAsyncExc(id, run_over_budget_type());
            }
            run.wall_s = seconds_between(start, run.over_budget ? monotonic::now() : state.last_done);
        }
        catch (...)
        {
            // Interrupted: no new jobs, and the running ones see the interrupt.
            state.stop = true;
            {
                std::lock_guard<std::mutex> lock(state.mutex);
                state.tickets = workers;
            }
            state.start_line.notify_all();
            for (unsigned long id : state.python_thread_ids)
            {
                if (id != 0) PyThreadState_SetAsyncExc(id, PyExc_KeyboardInterrupt);
            }
            py::gil_scoped_release release;
            for (std::thread& t : threads) t.join();
            throw;
        }
        {
            py::gil_scoped_release release;
            for (std::thread& t : threads) t.join();
        }
        return run;
    }
}
