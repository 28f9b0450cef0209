#include "workers/thread_pool.hpp"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "instruments/budget.hpp"
#include "base/clock.hpp"
#include "workers/interruptible.hpp"
#include "render/number_format.hpp"

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

        // How long a stopped pool waits with no worker leaving before it
        // leaves the ones stuck in a C call (time.sleep, a read) behind.
        constexpr auto abandon_after = std::chrono::milliseconds(2000);

        // Owned jointly by the caller and every worker, so that a worker left
        // running after a stop never touches a dead stack frame.
        struct shared_state
        {
            shared_state(py::object job_, long jobs_, int workers_)
                : job(std::move(job_))
                , jobs(jobs_)
                , workers(workers_)
                , chained(workers_ > release_together_max)
            {
                results.assign(static_cast<std::size_t>(jobs), py::none());
                python_thread_ids.assign(static_cast<std::size_t>(workers), 0);
            }

            py::object job;
            const long jobs;
            const int workers;
            const bool chained;
            std::mutex mutex;
            std::condition_variable start_line;  // parked workers wait here
            std::condition_variable all_parked;  // the caller waits here
            std::condition_variable finished;  // and here, for the last one out
            int parked = 0;
            long tickets = 0;  // workers allowed past the start line
            std::atomic<long> next_job{0};
            std::atomic<bool> stop{false};
            std::atomic<int> finished_workers{0};
            bool abandoned = false;  // under mutex: the caller has gone
            std::vector<unsigned long> python_thread_ids;
            monotonic::time_point last_done{};
            std::vector<py::object> results;  // written under the GIL
            bool failed = false;
            long failed_job = -1;
            std::string error_text;
        };

        std::string format_current_exception(py::error_already_set& error)
        {
            py::module_ traceback = py::module_::import("traceback");
            py::list lines = traceback.attr("format_exception")(error.type(), error.value(), error.trace());
            return py::str("").attr("join")(lines).cast<std::string>();
        }

        void work(const std::shared_ptr<shared_state>& state, int index)
        {
            // One thread state for the worker's life, not one per job.
            py::gil_scoped_acquire thread_state;
            state->python_thread_ids[static_cast<std::size_t>(index)] = PyThread_get_thread_ident();
            {
                py::gil_scoped_release between_jobs;
                {
                    std::unique_lock<std::mutex> lock(state->mutex);
                    if (++state->parked == state->workers) state->all_parked.notify_one();
                    state->start_line.wait(lock, [&] { return state->tickets > 0; });
                    --state->tickets;
                }
                bool passed_on = !state->chained;
                auto wake_next = [&] {
                    if (passed_on) return;
                    passed_on = true;
                    {
                        std::lock_guard<std::mutex> lock(state->mutex);
                        ++state->tickets;
                    }
                    state->start_line.notify_one();
                };
                while (!state->stop)
                {
                    const long i = state->next_job++;
                    if (i >= state->jobs)
                    {
                        break;
                    }
                    py::gil_scoped_acquire acquire;
                    wake_next();
                    try
                    {
                        state->results[static_cast<std::size_t>(i)] = state->job(i);
                    }
                    catch (py::error_already_set& error)
                    {
                        if (!state->failed && !error.matches(PyExc_KeyboardInterrupt) && !is_over_budget(error))
                        {
                            state->failed = true;
                            state->failed_job = i;
                            state->error_text = format_current_exception(error);
                        }
                        state->stop = true;
                    }
                    const auto done = monotonic::now();
                    std::lock_guard<std::mutex> lock(state->mutex);
                    state->last_done = std::max(state->last_done, done);
                }
                wake_next();
            }
            // The GIL is held again here: the last worker out of an abandoned
            // pool drops its Python references, which the caller no longer can.
            std::lock_guard<std::mutex> lock(state->mutex);
            if (++state->finished_workers == state->workers && state->abandoned)
            {
                state->job = py::object();
                state->results.clear();
            }
            state->finished.notify_all();
        }

        // Stops the workers with `exception` raised in them; joins those that
        // stop within the grace period and detaches the rest. Returns how
        // many were left. Call with the GIL held.
        int stop_workers(const std::shared_ptr<shared_state>& state, std::vector<std::thread>& threads,
                         PyObject* exception)
        {
            state->stop = true;
            {
                std::lock_guard<std::mutex> lock(state->mutex);
                state->tickets = state->workers;  // workers still parked leave at once
            }
            state->start_line.notify_all();
            for (unsigned long id : state->python_thread_ids)
            {
                if (id != 0) PyThreadState_SetAsyncExc(id, exception);
            }
            {
                // Thousands of workers leave one GIL hand-over at a time: wait
                // while they keep leaving, give up once none has for a while.
                py::gil_scoped_release release;
                int seen = state->finished_workers;
                auto deadline = monotonic::now() + abandon_after;
                while (state->finished_workers < state->workers && monotonic::now() < deadline)
                {
                    std::this_thread::sleep_for(std::chrono::milliseconds(5));
                    if (state->finished_workers != seen)
                    {
                        seen = state->finished_workers;
                        deadline = monotonic::now() + abandon_after;
                    }
                }
            }
            int left = 0;
            {
                std::lock_guard<std::mutex> lock(state->mutex);
                left = state->workers - state->finished_workers;
                state->abandoned = left > 0;
            }
            py::gil_scoped_release release;
            for (std::thread& t : threads)
            {
                if (left > 0) t.detach();
                else t.join();
            }
            threads.clear();
            return left;
        }
    }

    pool_run run_in_native_threads(py::object job, long jobs, int workers, double budget_s)
    {
        pool_run run;
        auto state = std::make_shared<shared_state>(std::move(job), jobs, workers);
        std::vector<std::thread> threads;
        const auto created = monotonic::now();
        try
        {
            {
                py::gil_scoped_release release;
                for (int w = 0; w < workers; ++w)
                {
                    threads.emplace_back(work, state, w);
                }
                std::unique_lock<std::mutex> lock(state->mutex);
                state->all_parked.wait(lock, [&] { return state->parked == workers; });
            }
            const auto start = monotonic::now();
            run.startup_s = seconds_between(created, start);
            {
                std::lock_guard<std::mutex> lock(state->mutex);
                state->last_done = start;
                state->tickets = state->chained ? 1 : workers;
            }
            if (state->chained) state->start_line.notify_one();
            else state->start_line.notify_all();
            const auto deadline = start + std::chrono::duration_cast<monotonic::duration>(std::chrono::duration<double>(budget_s));
            wait_interruptibly(state->mutex, state->finished,
                               [&] { return state->finished_workers == workers || monotonic::now() >= deadline; });
            if (state->finished_workers != workers)
            {
                run.over_budget = true;
                run.wall_s = seconds_between(start, monotonic::now());
                run.abandoned_workers = stop_workers(state, threads, run_over_budget_type());
            }
            else
            {
                run.wall_s = seconds_between(start, state->last_done);
            }
        }
        catch (...)
        {
            // Interrupted: no new jobs, and the running ones see the interrupt
            // at their next bytecode; one blocked in a C call is left behind.
            const int left = stop_workers(state, threads, PyExc_KeyboardInterrupt);
            if (left > 0)
            {
                PyErr_SetString(PyExc_KeyboardInterrupt,
                                (count_text(left, "worker thread") + " blocked in a C call (a sleep, a read) " +
                                 (left == 1 ? "was left to finish it; it stops" : "were left to finish it; they stop") +
                                 " when it returns")
                                    .c_str());
                throw py::error_already_set();
            }
            throw;
        }
        {
            py::gil_scoped_release release;
            for (std::thread& t : threads) t.join();
        }
        if (run.abandoned_workers == 0)
        {
            run.results = std::move(state->results);
            state->job = py::object();
        }
        run.failed = state->failed;
        run.failed_job = state->failed_job;
        run.error_text = state->error_text;
        return run;
    }
}
